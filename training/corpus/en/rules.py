"""Rule-following families: the rule lives in the instructions, the facts in a JSON/text state.

Return eligibility, candidate screening, access requests, marketplace listings, insurance claims.
"""
import random
from common import Family, Label, Task, fill, person, CITY, FIRST, LAST, hash_int

L = Label
YN = [L("yes", ["y"], ["y"]), L("no", ["n"], ["n"])]


def _host(fid, domain, fn, items=24):
    f = Family(id=fid, domain=domain, labels=list(YN), choice_q=["-"], n_choice=0, items_per_task=items, extra_tasks=fn)
    f.noul_per_label = 0
    return f


# ------------------------------------------------------------------ returns eligibility
PRODUCTS = ["wireless headphones", "linen shirt", "coffee maker", "hiking boots", "board game", "laptop sleeve", "ceramic vase", "smartwatch",
            "winter coat", "desk chair", "perfume", "swimsuit", "phone charger", "cookware set"]


def returns_tasks(rng, fam):
    out = []
    for i in range(10):
        r = random.Random(hash_int(f"ret{i}"))
        days = r.choice([14, 30, 45, 60, 90])
        excl = r.sample(["final sale", "opened hygiene product", "personalised item", "gift card", "clearance"], 2)
        style = i % 3
        if style == 0:
            instr = {"return_policy": {"window_days": days, "must_be_unused": True, "not_returnable": excl},
                     "question": "Is this return request eligible under `return_policy`?"}
        elif style == 1:
            instr = (f"Can the customer return this item? Returns are accepted within {days} days of delivery for unused items; "
                     f"{excl[0]} and {excl[1]} items cannot be returned.")
        else:
            instr = {"question": "Approve the return?", "rules": [f"Delivered no more than {days} days ago", "Item unused",
                                                                   f"Item category is not one of: {excl[0]}, {excl[1]}"]}
        crit = [None, {"true": "Eligible for return", "false": "Not eligible"}, {"true": "Approve", "false": "Reject"}][style]

        def gen(rng, key, diff, days=days, excl=excl):
            ok = key == "yes"
            d = "easy"
            age = rng.randint(1, days - 1)
            used = False
            cat = rng.choice(["standard", "regular price", "new arrival"])
            if not ok:
                why = rng.choice(["late", "used", "excluded"])
                if why == "late":
                    age = rng.randint(days + 1, days + 40)
                    if diff != "easy":
                        age = days + rng.randint(1, 3)
                        d = "boundary"
                elif why == "used":
                    used = True
                else:
                    cat = rng.choice(excl)
            elif diff != "easy":
                age = days - rng.randint(0, 2) if rng.random() < 0.6 else age
                if age == days:
                    d = "boundary"
                elif age >= days - 2:
                    d = "boundary"
            if ok and diff == "decoy":
                msg = rng.choice(["I know it's close to the deadline and I feel bad asking, but I'd like to return it.",
                                  "It isn't broken and nothing is wrong with it; I simply changed my mind."])
                d = "decoy"
            else:
                msg = rng.choice(["I'd like to send this back.", "It doesn't suit me, can I return it?", "Please arrange a return.",
                                  "Not what I expected, want a refund."])
            st = {"order_id": f"#{rng.randint(10000, 99999)}", "item": rng.choice(PRODUCTS), "item_category": cat,
                  "days_since_delivery": age, "condition": "used, signs of wear" if used else rng.choice(["unused, original packaging", "unused, tags attached"]),
                  "customer_message": msg}
            if rng.random() < 0.3:
                return (f"Order {st['order_id']}: {st['item']} ({cat}), delivered {age} days ago, condition: {st['condition']}. "
                        f"Customer says: \"{msg}\""), d
            return st, d
        t = Task(f"rule-return{i}", fam, "noul", instr, crit, lambda k: k == "yes", ["yes", "no"])
        t.custom_gen = gen
        out.append(t)
    return out


# ------------------------------------------------------------------ candidate screening
SKILLS = ["Python", "SQL", "Kubernetes", "React", "Excel", "Salesforce", "Figma", "Java", "AWS", "Tableau", "Spanish", "Go"]
ROLES = ["data analyst", "backend engineer", "sales operations specialist", "product designer", "DevOps engineer", "frontend developer"]


def cand_tasks(rng, fam):
    out = []
    for i in range(10):
        r = random.Random(hash_int(f"cand{i}"))
        role = r.choice(ROLES)
        req = r.sample(SKILLS, 2)
        yrs = r.choice([2, 3, 4, 5])
        remote = r.random() < 0.5
        if i % 2 == 0:
            instr = {"job": {"title": role, "required_skills": req, "min_years_experience": yrs, "work_permit_required": True},
                     "question": "Does the candidate meet every hard requirement of `job`?"}
        else:
            instr = (f"Screen for the {role} role: the candidate needs at least {yrs} years of experience, both {req[0]} and {req[1]}, "
                     f"and a valid work permit. Does the candidate meet all of these?")
        crit = None if i % 3 else {"true": "Meets all hard requirements", "false": "Misses at least one"}

        def gen(rng, key, diff, req=req, yrs=yrs):
            ok = key == "yes"
            d = "easy"
            skills = set(req) | set(rng.sample([s for s in SKILLS if s not in req], rng.randint(1, 3)))
            years = rng.randint(yrs, yrs + 8)
            permit = True
            if not ok:
                why = rng.choice(["skill", "years", "permit"])
                if why == "skill":
                    skills.discard(rng.choice(req))
                    d = "boundary" if diff != "easy" else "easy"
                elif why == "years":
                    years = yrs - 1 if diff != "easy" else max(0, yrs - rng.randint(1, 2))
                    d = "boundary" if diff != "easy" else "easy"
                else:
                    permit = False
            elif diff == "boundary":
                years = yrs
                d = "boundary"
            name = person(rng)
            sk = sorted(skills)
            rng.shuffle(sk)
            if ok and diff == "decoy":
                extra = "No university degree (not required for this role)."
                d = "decoy"
            elif not ok and diff == "decoy":
                extra = "Excellent references and a very impressive portfolio."
                d = "decoy" if d == "easy" else d
            else:
                extra = rng.choice(["Available in four weeks.", "Open to hybrid work.", "Currently employed.", ""])
            if rng.random() < 0.5:
                return {"candidate": name, "years_experience": years, "skills": sk, "has_work_permit": permit, "notes": extra}, d
            return (f"{name} has {years} years of experience. Skills: {', '.join(sk)}. "
                    f"{'Holds a valid work permit.' if permit else 'Would need visa sponsorship (no work permit).'} {extra}").strip(), d
        t = Task(f"rule-cand{i}", fam, "noul", instr, crit, lambda k: k == "yes", ["yes", "no"])
        t.custom_gen = gen
        out.append(t)
    return out


# ------------------------------------------------------------------ access requests
RES = {"payroll_db": "restricted", "customer_pii": "restricted", "wiki": "internal", "sales_dashboard": "internal", "prod_servers": "restricted",
       "marketing_drive": "internal", "source_code": "internal", "hr_records": "restricted"}


def access_tasks(rng, fam):
    out = []
    for i in range(8):
        r = random.Random(hash_int(f"acc{i}"))
        need_mgr = r.random() < 0.5
        if i % 2 == 0:
            instr = {"policy": ["Internal resources: any full-time employee may be granted access.",
                                "Restricted resources: requires manager approval AND a security training completed in the last 12 months.",
                                "Contractors never get restricted resources."],
                     "question": "Should this access request be granted under `policy`?"}
        else:
            instr = ("Grant or deny: employees get internal resources automatically; restricted resources need manager approval plus security training "
                     "within the last year; contractors may never access restricted resources. Should the request be granted?")
        crit = [None, {"true": "Grant", "false": "Deny"}][i % 2]

        def gen(rng, key, diff):
            ok = key == "yes"
            d = "easy"
            res = rng.choice(list(RES))
            restricted = RES[res] == "restricted"
            emp = "full-time"
            appr = rng.random() < 0.5
            train = rng.randint(1, 30)
            if ok:
                if restricted:
                    appr, train = True, rng.randint(1, 11)
                    if diff != "easy":
                        train = 11
                        d = "boundary"
                elif diff == "decoy":
                    appr = False
                    d = "decoy"
            else:
                if not restricted:
                    res = rng.choice([k for k, v in RES.items() if v == "restricted"])
                why = rng.choice(["contractor", "no_approval", "old_training"])
                if why == "contractor":
                    emp, appr, train = "contractor", True, rng.randint(1, 10)
                    if diff == "decoy":
                        d = "decoy"
                elif why == "no_approval":
                    appr, train = False, rng.randint(1, 10)
                else:
                    appr, train = True, rng.randint(13, 30)
                    if diff != "easy":
                        train = 13
                        d = "boundary"
            st = {"requester": person(rng), "employment": emp, "resource": res, "resource_class": RES[res],
                  "manager_approved": appr, "security_training_months_ago": train,
                  "justification": rng.choice(["Quarterly reporting", "On-call rotation", "Onboarding", "Audit preparation", "Customer escalation"])}
            if d == "decoy" and emp == "contractor":
                st["justification"] = "Urgent, approved by the VP personally"
            return st, d
        t = Task(f"rule-access{i}", fam, "noul", instr, crit, lambda k: k == "yes", ["yes", "no"])
        t.custom_gen = gen
        out.append(t)
    return out


# ------------------------------------------------------------------ marketplace listings
LIST = {
    "weapons": ["hunting rifle, barely used, ammo included", "set of throwing knives with holster", "pepper spray 5-pack", "crossbow with scope"],
    "counterfeit": ["designer handbag replica, looks 100% real, 1:1 copy", "'Rolex' watch, AAA copy, comes with fake papers", "replica football jerseys with official logos, cheap"],
    "drugs": ["prescription painkillers, no prescription needed, 30 tablets", "weight-loss pills (sibutramine), ship worldwide", "leftover sleeping pills from my prescription"],
    "animals": ["two baby parrots, hand-fed, ready for a new home", "purebred kittens, vaccinated, 8 weeks old", "live tropical fish, whole tank included"],
    "allowed": ["used mountain bike, 21 gears, new tyres", "vintage record player, works perfectly", "children's books bundle, 40 books", "IKEA desk, small scratch on top",
                "kitchen knife set, still in original packaging"],
}
LIST_DECOY = {
    "allowed": ["Toy water pistol for kids, bright plastic, not a real weapon", "Book: 'The History of Firearms', hardcover", "Genuine leather handbag with receipt from the brand store",
                "Empty fish tank, no fish, 60 litres"],
    "counterfeit": ["'Authentic' sneakers, no box, bought from a factory outlet in a market, sold as original brand at 10% of the price, replica tag visible"],
}


def gen_listing(rng, key, diff):
    d = "easy"
    if diff == "decoy" and key in LIST_DECOY:
        title = rng.choice(LIST_DECOY[key])
        d = "decoy"
    else:
        title = rng.choice(LIST[key])
    price = rng.randint(5, 900)
    st = {"title": title, "price": price, "seller_rating": round(rng.uniform(3.0, 5.0), 1), "location": rng.choice(CITY)}
    if rng.random() < 0.4:
        return f"Listing: {title}. Price {price}. Pickup in {st['location']}.", d
    return st, d


LISTING = Family(
    id="mkt-listing", domain="marketplace_policy", gen=gen_listing, n_choice=8, noul_per_label=1, items_per_task=24,
    choice_q=["Which marketplace policy applies to this listing?", "Review the listing for prohibited items.", "Classify the listing for trust & safety.",
              "Is this item allowed, and if not, why?"],
    labels=[L("allowed", ["allowed", "ok to list"], ["Ordinary item, fine to sell", "No prohibited content"], nq=["Can this listing stay up?"]),
            L("weapons", ["weapons", "weapon listing"], ["Guns, ammunition, knives meant as weapons, sprays", "Prohibited weapons"], nq=["Does the listing sell a weapon?"]),
            L("counterfeit", ["counterfeit", "replica goods"], ["Fake branded goods or replicas", "Knock-offs of brands"], nq=["Is the item a counterfeit or replica of a brand?"]),
            L("drugs", ["drugs and medicines", "prescription drugs"], ["Medicines or drugs sold without authorisation", "Prescription or illegal drugs"],
              nq=["Does the listing sell drugs or prescription medicine?"]),
            L("animals", ["live animals", "animal sale"], ["Live animals for sale", "Pets or livestock"], nq=["Is a live animal being sold?"])],
)


INSURE = Family(
    id="ins-claim", domain="insurance", n_choice=7, noul_per_label=1, items_per_task=24,
    wrap=lambda rng, t, k: t if rng.random() < 0.5 else {"policy_number": f"P-{rng.randint(100000, 999999)}", "claimant": person(rng), "description": t},
    choice_q=["Which line of insurance does this claim fall under?", "Route the claim to the right team.", "What type of claim is this?", "Claim category"],
    context=["I've been a customer for {n} years.", "Photos are attached.", "This happened on {date}."],
    labels=[
        L("motor", ["motor", "car insurance", "auto"], ["Car, motorbike or van accidents and damage", "Vehicle claims"], nq=["Is this a motor insurance claim?"],
          easy=["Someone reversed into my parked car and dented the rear bumper.", "My windscreen cracked after a stone hit it on the motorway.",
                "I skidded on ice and hit a lamppost; the front of the car is damaged.", "My scooter was stolen from outside the station."],
          decoy=[("home", "The car was parked in my garage at home, but the claim is for the car: a shelf fell on the bonnet and dented it.")]),
        L("home", ["home", "property", "household"], ["Damage to a house, flat or its contents", "Property claims"], nq=["Is this a home or property claim?"],
          easy=["A pipe burst in the bathroom and water came through the kitchen ceiling.", "Burglars broke the back door and took our TV and laptop.",
                "The storm blew several tiles off our roof.", "A fire in the kitchen damaged the cupboards and walls."],
          decoy=[("travel", "I was abroad when it happened, but the claim is for my flat: the neighbour's washing machine flooded my living room.")]),
        L("travel", ["travel", "trip insurance"], ["Trip cancellation, lost luggage, medical costs abroad", "Travel claims"], nq=["Is this a travel insurance claim?"],
          easy=["The airline lost my suitcase on the way to {city} and it never turned up.", "I had to cancel my holiday because my mother was hospitalised.",
                "I broke my arm skiing abroad and paid the hospital there.", "My connecting flight was cancelled and I had to pay for a hotel."],
          decoy=[("motor", "I did rent a car on the trip, but the claim is about my luggage, which was stolen from the hotel lobby.")]),
        L("pet", ["pet", "pet insurance"], ["Vet bills for a cat or dog", "Pet health claims"], nq=["Is this a pet insurance claim?"],
          easy=["My dog swallowed a sock and needed surgery at the vet.", "The cat was diagnosed with diabetes and needs insulin.",
                "Vet bill for my puppy's broken leg after jumping off the sofa."]),
        L("health", ["health", "medical"], ["Medical treatment for the policyholder at home", "Health claims"], nq=["Is this a health insurance claim?"],
          easy=["I need physiotherapy for my back after a slipped disc.", "Claim for my MRI scan last month.", "I had knee surgery at a private clinic and want reimbursement."],
          decoy=[("pet", "My dog was with me when I fell, but she's fine; the claim is for my own broken wrist and the X-rays.")]),
    ])


def gen_destructive_host():
    pass


FAMILIES = [_host("rule-return", "ecommerce_returns", returns_tasks), _host("rule-cand", "hr_recruiting", cand_tasks),
            _host("rule-access", "security_access", access_tasks), LISTING, INSURE]
