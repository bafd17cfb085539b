"""RAG relevance, groundedness and answer-relevance families (invented passages)."""
import random
from common import Family, Label, Task, hash_int

L = Label

# passage, related-but-unanswered queries, [(question, supported answer, contradicting answer, unsupported answer)]
TOPICS = [
    ("The Larkmoor Ferry runs between Port Adley and Fennick Island every 90 minutes from 6:00 to 21:00. Tickets cost 8 pounds for adults and 4 pounds for children under 12. Bicycles travel free, but cars must be booked at least one day ahead.",
     ["Is there a cafe on board the Larkmoor Ferry?", "How long is the crossing to Fennick Island?"],
     [("How often does the Larkmoor Ferry run?", "Every 90 minutes, between 6:00 and 21:00.", "Every 30 minutes, around the clock.", "Every 90 minutes, and more often during the summer festival."),
      ("How much is a child ticket on the ferry?", "Children under 12 pay 4 pounds.", "Children travel free.", "Children under 12 pay 4 pounds, and teenagers get a student discount of 2 pounds."),
      ("Do I need to book to take my car on the ferry?", "Yes, cars must be booked at least a day in advance.", "No, cars can just turn up and board.", "Yes, and car bookings can only be made by phone.")]),
    ("Orbis Notes stores drafts locally for 30 days before deleting them. Syncing to the cloud requires the Plus plan, which costs 5 dollars a month. Shared notebooks can have up to 25 members, and only the owner can delete a shared notebook.",
     ["Does Orbis Notes have a desktop app for Linux?", "Can I import notes from other apps into Orbis Notes?"],
     [("How long are drafts kept in Orbis Notes?", "Drafts are kept locally for 30 days.", "Drafts are kept forever.", "Drafts are kept for 30 days and are also backed up to the cloud for free users."),
      ("What plan do I need for cloud sync?", "The Plus plan, at 5 dollars a month.", "Cloud sync is free on every plan.", "The Plus plan, which includes a 14-day free trial."),
      ("Who can delete a shared notebook?", "Only the owner of the notebook.", "Any member of the notebook can delete it.", "The owner and any admin the owner appoints.")]),
    ("The Verrin Valley hiking trail is 14 kilometres long and climbs 620 metres. It is closed from December to February because of snow. Dogs are allowed on a leash, and there is one refuge hut at the halfway point with drinking water.",
     ["Is there parking at the start of the Verrin Valley trail?", "What wildlife can be seen on the trail?"],
     [("How long is the Verrin Valley trail?", "It is 14 kilometres long.", "It is 40 kilometres long.", "It is 14 kilometres long and usually takes about six hours."),
      ("Can I bring my dog on the trail?", "Yes, dogs are allowed if they are on a leash.", "No, dogs are not allowed on the trail.", "Yes, and dog waste bags are provided at the refuge hut."),
      ("When is the trail closed?", "From December to February, because of snow.", "It is closed during the summer months.", "From December to February, and on public holidays.")]),
    ("Kelvane Bank's savings account pays 3.1 percent interest per year, calculated daily and paid monthly. There is no minimum balance. Customers may make up to three free withdrawals per month; after that each withdrawal costs 2 euros.",
     ["Does Kelvane Bank offer mortgages?", "What is Kelvane Bank's phone number?"],
     [("What interest does the Kelvane savings account pay?", "3.1 percent per year, paid monthly.", "1.5 percent per year, paid annually.", "3.1 percent per year, rising to 3.5 percent after one year."),
      ("Is there a minimum balance for the savings account?", "No, there is no minimum balance.", "Yes, you must keep at least 500 euros in it.", "No minimum balance, but you need at least 100 euros to open it."),
      ("How many free withdrawals do I get per month?", "Three; after that each one costs 2 euros.", "Unlimited free withdrawals.", "Three, plus one extra free withdrawal in December.")]),
    ("Patients at Solwick Clinic can book appointments online or by phone. Same-day appointments are released at 8:00 each morning. The clinic is open 8:00 to 18:00 on weekdays and 9:00 to 12:00 on Saturdays, and closed on Sundays. Repeat prescriptions take two working days.",
     ["Does Solwick Clinic offer physiotherapy?", "Which doctors work at Solwick Clinic?"],
     [("When are same-day appointments released?", "At 8:00 every morning.", "At noon the day before.", "At 8:00, and a few more are released at 14:00."),
      ("Is the clinic open on Sundays?", "No, it is closed on Sundays.", "Yes, from 9:00 to 12:00.", "No, but an out-of-hours nurse line is available on Sundays."),
      ("How long does a repeat prescription take?", "Two working days.", "It is ready the same day.", "Two working days, or one day if you collect it in person.")]),
    ("The Harwick 200 electric scooter has a top speed of 25 km/h and a range of 35 km. A full charge takes about 5 hours. It weighs 14 kilograms and supports riders up to 100 kilograms. The battery is covered by a two-year warranty.",
     ["What colours does the Harwick 200 come in?", "Can the Harwick 200 be ridden in the rain?"],
     [("What is the range of the Harwick 200?", "About 35 km on a full charge.", "About 80 km on a full charge.", "About 35 km, or 45 km in eco mode."),
      ("How long does the scooter take to charge?", "About 5 hours for a full charge.", "About 30 minutes.", "About 5 hours, or 2 hours with the fast charger."),
      ("How long is the battery warranty?", "Two years.", "Six months.", "Two years, extendable to four years for a fee.")]),
    ("At Brindle Academy, the autumn term starts on 2 September and ends on 19 December. Pupils must wear the school uniform except on the last Friday of each month. Lunch is provided free for pupils in years 1 to 3.",
     ["How many pupils attend Brindle Academy?", "Does Brindle Academy have a swimming pool?"],
     [("When does the autumn term end?", "On 19 December.", "On 30 November.", "On 19 December, with a half-term break in late October."),
      ("Which pupils get free lunch?", "Pupils in years 1 to 3.", "All pupils get free lunch.", "Pupils in years 1 to 3, and older pupils from low-income families."),
      ("Do pupils always have to wear the uniform?", "No, not on the last Friday of each month.", "Yes, every single school day.", "No, and on those days pupils donate a coin to charity.")]),
    ("The Quorra API limits each key to 600 requests per minute. Requests above the limit receive HTTP 429 with a Retry-After header. Keys created before 2025 are limited to 100 requests per minute until they are rotated. Webhooks are retried five times with exponential backoff.",
     ["Does the Quorra API support GraphQL?", "Which regions host the Quorra API?"],
     [("What is the rate limit of a Quorra API key?", "600 requests per minute for current keys.", "10,000 requests per minute.", "600 requests per minute, and enterprise customers can request more."),
      ("What happens when I exceed the rate limit?", "You get HTTP 429 with a Retry-After header.", "The key is permanently revoked.", "You get HTTP 429, and repeated violations are emailed to your admin."),
      ("How many times are failed webhooks retried?", "Five times, with exponential backoff.", "They are never retried.", "Five times over 24 hours, then the endpoint is disabled.")]),
    ("Greyfield Museum is free to enter on the first Sunday of each month; otherwise tickets cost 12 dollars. Photography without flash is allowed in the permanent collection but not in temporary exhibitions. The museum closes at 17:00 except on Thursdays, when it stays open until 21:00.",
     ["Who founded Greyfield Museum?", "Is there a museum shop?"],
     [("When is entry to Greyfield Museum free?", "On the first Sunday of each month.", "Every Monday.", "On the first Sunday of each month and on the museum's birthday in May."),
      ("Can I take photos in the museum?", "Yes, without flash, but only in the permanent collection.", "No photography is allowed anywhere.", "Yes, and tripods may be used with a permit."),
      ("What time does the museum close on Thursdays?", "At 21:00.", "At 17:00 like every other day.", "At 21:00, and the cafe stays open until 22:00.")]),
    ("Tandra Air allows one cabin bag of up to 8 kilograms and one small personal item. Checked bags cost 30 dollars each when added online and 45 dollars at the airport. Online check-in opens 24 hours before departure and closes 2 hours before.",
     ["Does Tandra Air serve meals on short flights?", "What destinations does Tandra Air fly to?"],
     [("How heavy can my cabin bag be on Tandra Air?", "Up to 8 kilograms.", "Up to 15 kilograms.", "Up to 8 kilograms, or 10 kilograms for business class."),
      ("How much does a checked bag cost?", "30 dollars online, 45 dollars at the airport.", "Checked bags are free.", "30 dollars online, but the first bag is free for frequent flyers."),
      ("When does online check-in close?", "Two hours before departure.", "Fifteen minutes before departure.", "Two hours before, or one hour for domestic routes.")]),
    ("The community garden on Ashby Road has 40 plots, rented for 25 pounds a year. Plot holders must attend two work days per season. Hosepipes are banned in July and August; watering cans must be used instead. The waiting list is currently about eight months.",
     ["What vegetables grow best at Ashby Road?", "Is the garden wheelchair accessible?"],
     [("How much does a plot cost?", "25 pounds a year.", "100 pounds a month.", "25 pounds a year, with a discount for pensioners."),
      ("Can I use a hosepipe in summer?", "Not in July and August; watering cans only.", "Yes, hosepipes are allowed all year.", "Not in July and August, except during heatwaves."),
      ("How long is the waiting list?", "About eight months.", "There is no waiting list.", "About eight months, shorter for local residents.")]),
    ("Meridel Software's support team answers tickets within 4 business hours for Premium customers and within 2 business days for Standard customers. Phone support is only available to Premium customers. Support covers the current and previous major version.",
     ["How much does Meridel Premium cost?", "Where is Meridel Software based?"],
     [("How fast are Standard customers answered?", "Within 2 business days.", "Within 4 business hours.", "Within 2 business days, or faster for outages."),
      ("Can Standard customers call support by phone?", "No, phone support is only for Premium customers.", "Yes, all customers can call.", "No, but they can book a paid call."),
      ("Which versions does support cover?", "The current and the previous major version.", "Only the current version.", "The current and previous major version, plus long-term-support releases.")]),
]


def _topic(rng):
    return rng.choice(TOPICS)


def gen_relevance(rng, key, diff):
    p, related, qa = _topic(rng)
    d = "easy"
    if key == "2":
        q = rng.choice(qa)[0]
        if diff != "easy":
            d = "boundary"
            q = q.replace("How", "Roughly how", 1) if q.startswith("How") else q
    elif key == "1":
        q = rng.choice(related)
        d = "boundary" if diff != "easy" else "easy"
    else:
        other = rng.choice([t for t in TOPICS if t[0] != p])
        q = rng.choice(other[2])[0]
        if diff == "decoy":
            # shares a generic word with the passage
            q = rng.choice(["What are the opening hours of the city zoo?", "How much does a monthly gym membership cost?", "How long does it take to learn to swim?",
                            "What is the warranty on a new refrigerator?", "When does the public library close on Sundays?"])
    return {"query": q, "passage": p}, d


REL = Family(
    id="rag-rel", domain="rag", ordered=True, gen=gen_relevance, n_score=5, n_choice=3, items_per_task=24,
    choice_q=["Is this passage relevant to the query?", "Judge the retrieval result.", "How well does the passage match the query?"],
    score_q=["How relevant is the passage to the query?", "Rate the passage's usefulness for answering `query`.",
             "Retrieval relevance of `passage` for `query`", "Score how well the passage answers the search query."],
    threshold_q=[(2, "Does the passage contain the answer to the query?"), (1, "Is the passage at least on the same topic as the query?"),
                 (2, "Can the query be answered from this passage alone?")],
    labels=[L("0", ["irrelevant", "off topic"], ["Unrelated to the query", "Different subject entirely", "Not relevant"]),
            L("1", ["related", "partially relevant"], ["Same subject but does not answer the query", "On topic, answer missing", "Related but insufficient"]),
            L("2", ["answers", "highly relevant"], ["Contains the answer to the query", "Directly answers the query", "Fully relevant"])],
)


def gen_ground(rng, key, diff):
    p, related, qa = _topic(rng)
    q, good, bad, unsup = rng.choice(qa)
    d = "easy"
    if key == "supported":
        a = good
        if diff == "decoy":
            a = "I'm not completely sure, but according to the text: " + good[0].lower() + good[1:]
            d = "decoy"
    elif key == "contradicted":
        a = bad
        if diff == "decoy":
            a = "According to the passage, " + bad[0].lower() + bad[1:]
            d = "decoy"
    else:
        a = unsup
        d = "boundary"
    if rng.random() < 0.5:
        # retrieved context with one or two unrelated passages around the relevant one
        ps = [p] + [t[0] for t in rng.sample([t for t in TOPICS if t[0] != p], rng.randint(1, 2))]
        rng.shuffle(ps)
        p = "\n\n".join(ps)
    fmt = rng.random()
    if fmt < 0.6:
        return {"question": q, "context": p, "answer": a}, d
    if fmt < 0.8:
        return [{"role": "system", "content": "Answer using only this document: " + p}, {"role": "user", "content": q}, {"role": "assistant", "content": a}], d
    return f"Context: {p}\n\nQuestion: {q}\n\nAnswer: {a}", d


GROUND = Family(
    id="rag-ground", domain="rag", gen=gen_ground, n_choice=6, noul_per_label=2, items_per_task=24, subsets=False,
    choice_q=["Is the answer supported by the context?", "Check the answer against the retrieved context.", "Grounding verdict for the answer",
              "Compare the answer with the source document. Every claim must come from the document."],
    labels=[
        L("supported", ["supported", "grounded", "faithful"], ["Every claim in the answer is stated in the context", "Fully backed by the source"],
          nq=["Is every claim in the answer supported by the context?", "Is the answer faithful to the source text?"]),
        L("contradicted", ["contradicted", "conflicts with source", "wrong"], ["The answer states something the context contradicts", "Conflicts with the document"],
          nq=["Does the answer contradict the context?", "Does the answer conflict with what the document says?"]),
        L("unsupported", ["not in context", "unsupported addition", "hallucinated detail"], ["Adds claims the context does not mention (even if the rest is right)",
                                                                                           "Contains information not found in the source"],
          nq=["Does the answer add information that is not in the context?", "Does the answer include an unsupported detail?"]),
    ])


def ansrel_gen(rng, key, diff):
    p, related, qa = _topic(rng)
    i = rng.randrange(len(qa))
    q = qa[i][0]
    d = "easy"
    if key == "yes":
        a = qa[i][1]
    else:
        j = rng.choice([k for k in range(len(qa)) if k != i])
        a = qa[j][1]
        if diff != "easy":
            d = "decoy"
            a = "Good question about that! " + a
    return {"user_question": q, "assistant_answer": a}, d


def ansrel_tasks(rng, fam):
    qs = ["Does the assistant's answer address the user's question?", "Is the answer responsive to what was asked (ignore whether it is true)?",
          "Did the assistant answer the question that was actually asked?"]
    out = []
    for i, q in enumerate(qs):
        t = Task(f"rag-ansrel{i}", fam, "noul", q, [None, {"true": "On topic and responsive", "false": "Answers something else"}, None][i],
                 lambda k: k == "yes", ["yes", "no"])
        t.custom_gen = ansrel_gen
        out.append(t)
    return out


ANSREL = Family(id="rag-ansrel", domain="rag", labels=[L("yes", ["y"], ["y"]), L("no", ["n"], ["n"])], choice_q=["-"], n_choice=0,
                items_per_task=24, extra_tasks=ansrel_tasks)
ANSREL.noul_per_label = 0
FAMILIES = [REL, GROUND, ANSREL]
