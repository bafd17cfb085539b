"""Statement-verification noul tasks over documents (task ids ``cd-*``).

Each task asks whether one fixed statement holds for a document: business emails, meeting notes,
contract / policy / lease clauses, listings and spec sheets, job postings and CVs, clinic visit
notes, legal intake notes, local news, course announcements, travel itineraries, invoices and
receipts, and RAG "passage + answer" pairs.  The answer depends on reading the specific content,
not on the topic: every false item is on the same topic as the statement.

A task spec (``SPECS``) holds sentence banks for the *key part* of the document:

  T   true, states the fact plainly                          -> easy
  TB  true, low word overlap with the statement               -> boundary
  TD  true despite a negation / contrast cue nearby           -> decoy
  FD  false by explicit negation or "discussed, rejected"     -> decoy
  FB  false by a different value / party / condition / time   -> boundary
  FE  false: same kind of document, the fact clearly absent   -> easy

The generator fills slots consistently ({A} the main person, {B} the other party, dates, amounts,
places), mixes the key part with label-neutral context lines of the document format (filtered by the
task's ``avoid`` words so context can never touch the statement) and renders the document as text
or JSON.  All names, places and documents are invented for this corpus.
"""
from __future__ import annotations

import re

from common import Family, Label, Task, FIRST, LAST, COMPANY, CITY, MONTH, WEEKDAY

L = Label

TOWN = ["Marrowby", "Kelsey Bridge", "Upper Dunmore", "Tollvik", "Harnfield", "Brackenmoor", "Saltmere",
        "Vellan Cove", "Oakhurst Vale", "Ashcombe Wells", "Lindholm Bay", "Corran Ford", "Wexley Green",
        "Halbrook", "Stenmouth", "Greyhollow"]
HOTEL = ["Aster", "Quayside", "Linden House", "Northlight", "Marlow Court", "Bellhaven", "The Tannery", "Ostra"]
CARCO = ["Roadly", "Drivana", "Kerb & Co", "MileHire", "Zento Cars"]
COURSE = ["Introduction to Pottery", "Bookkeeping Basics", "Spanish for Beginners", "Data Skills 101",
          "First Aid Essentials", "Creative Writing Workshop", "Intro to Woodwork", "Digital Photography"]
ROLE = ["data analyst", "operations coordinator", "customer success manager", "backend developer",
        "warehouse supervisor", "bookkeeper", "marketing assistant", "lab technician"]
GADGET = ["Corvel X2 wireless speaker", "Tidal 5 fitness band", "Lumo Pad 10 tablet", "Brisk Pro cordless drill",
          "Nook-Cam 2 security camera", "Aerin smart scale", "Pello travel kettle", "Vistra E3 e-reader"]
GOODS = ["oak bookcase", "espresso machine", "road bike", "camera lens", "stand mixer", "gaming headset",
         "bunk bed", "desk lamp", "snowboard", "sewing machine", "record player", "garden bench"]
FURNITURE = ["oak wardrobe", "corner sofa", "bunk bed", "standing desk", "garden bench", "chest of drawers",
             "dining table with four chairs", "bookcase", "TV unit", "bed frame (king size)"]


def _money(rng, lo=12, hi=480):
    return f"{rng.randint(lo, hi)}.{rng.choice(['00', '50', '99', '25', '40'])}"


def slots(rng) -> dict:
    """One consistent set of invented entities for an item."""
    f1, f2, f3 = rng.sample(FIRST, 3)
    l1, l2, l3 = rng.sample(LAST, 3)
    co, co2 = rng.sample(COMPANY, 2)
    city, city2, hub = rng.sample(CITY, 3)
    m1, m2, m3 = rng.sample(range(12), 3)
    s1 = rng.randint(32, 70) * 1000
    return {
        "A": f"{f1} {l1}", "Af": f1, "Al": l1, "B": f"{f2} {l2}", "Bf": f2, "Bl": l2, "C": f"{f3} {l3}", "Cf": f3,
        "co": co, "co2": co2, "city": city, "city2": city2, "hub": hub, "town": rng.choice(TOWN),
        "date": f"{MONTH[m1]} {rng.randint(1, 28)}", "date2": f"{MONTH[m2]} {rng.randint(1, 28)}", "d3": f"{MONTH[m3]} {rng.randint(1, 28)}",
        "month": MONTH[m2], "day": rng.choice(WEEKDAY[:5]), "year": str(rng.randint(2014, 2023)),
        "amt": "$" + _money(rng), "n": str(rng.randint(2, 9)), "nn": str(rng.randint(11, 60)),
        "pct": str(rng.choice([5, 10, 12, 15, 20, 25])), "room": f"{rng.choice('ABCDE')}{rng.randint(101, 340)}",
        "ref": f"INV-{rng.randint(1000, 9999)}", "ref2": f"INV-{rng.randint(1000, 9999)}",
        "hotel": rng.choice(HOTEL), "carco": rng.choice(CARCO), "course": rng.choice(COURSE),
        "role": rng.choice(ROLE), "gadget": rng.choice(GADGET), "goods": rng.choice(GOODS),
        "furn": rng.choice(FURNITURE),
        "j": str(rng.randint(25, 90) * 10), "jb": str(rng.choice([120, 150, 160, 180, 190, 195, 200])),
        "js": str(rng.randint(2, 9) * 10), "j1": str(rng.randint(201, 230)),
        "s1": f"{s1:,}", "s2": f"{s1 + rng.randint(6, 18) * 1000:,}",
        "L1": _money(rng, 40, 900), "L2": _money(rng, 20, 400), "L3": _money(rng, 5, 120), "L4": _money(rng, 10, 250),
        "L5": _money(rng, 4, 30), "fee": _money(rng, 10, 45), "vat": _money(rng, 20, 180), "neg": _money(rng, 5, 90),
    }


def fill(text: str, F: dict) -> str:
    out = re.sub(r"\{(\w+)\}", lambda m: str(F[m.group(1)]), text)
    assert "{" not in out, out
    return out


# --------------------------------------------------------------------------------------------
# Document formats: label-neutral context lines, optional filler paragraphs, renderer
# --------------------------------------------------------------------------------------------
def _bullets(parts, mark="- "):
    return "\n".join(mark + p for p in parts)


def r_email(rng, parts, F, spec):
    body = " ".join(parts) if rng.random() < 0.6 else "\n\n".join(parts)
    subj = rng.choice(spec.get("subj") or ["Quick update", "Re: next steps", "Following up", "Catching up",
                                            "A few things", "Re: {co2}", "Update from {city}"])
    subj = fill(subj, F)
    greet = rng.choice(["Hi {Bf},", "Hello {Bf},", "Dear {B},", "{Bf},", "Hi,"])
    sign = rng.choice(["Best,\n{Af}", "Thanks,\n{A}", "Regards,\n{A}\n{co}", "Cheers, {Af}", "{Af}"])
    r = rng.random()
    if r < 0.3:
        return {"from": F["A"], "to": F["B"], "subject": subj, "body": fill(greet, F) + " " + body + " " + fill(sign, F).replace("\n", " ")}
    if r < 0.55:
        return fill(greet, F) + " " + body.replace("\n\n", " ") + " " + fill(sign, F).replace("\n", " ")
    return f"From: {F['A']}\nTo: {F['B']}\nSubject: {subj}\n\n" + fill(greet, F) + "\n\n" + body + "\n\n" + fill(sign, F)


def r_meeting(rng, parts, F, spec):
    team = rng.choice(["Product", "Operations", "Marketing", "Steering group", "Finance", "Project Lantern", "Weekly leads"])
    att = [F["A"], F["B"], F["C"]]
    rng.shuffle(att)
    r = rng.random()
    if r < 0.3:
        return {"meeting": f"{team} meeting", "date": F["date"], "attendees": att, "notes": parts}
    if r < 0.5:
        return f"Minutes of the {team} meeting, {F['date']}. " + " ".join(parts)
    return f"{team} meeting - {F['date']}\nAttendees: {', '.join(att)}\n\n" + _bullets(parts, rng.choice(["- ", "* ", "• "]))


def r_clauses(rng, parts, F, spec):
    title = fill(rng.choice(spec.get("titles") or FMT[spec["fmt"]]["titles"]), F)
    base = rng.randint(1, 9)
    nums = [f"{base}.{i + 1}" for i in range(len(parts))]
    r = rng.random()
    if r < 0.3:
        return {"document": title, "clauses": dict(zip(nums, parts))}
    if r < 0.45:
        return " ".join(parts)
    return title + "\n\n" + "\n".join(f"{n} {p}" for n, p in zip(nums, parts))


def r_listing(rng, parts, F, spec):
    item = F[spec.get("item", "goods")]
    item = item[:1].upper() + item[1:]
    r = rng.random()
    if r < 0.45:
        return {"title": item, "price": "$" + F["L1"], "seller": F["Af"], "location": F["city"], "description": " ".join(parts)}
    if r < 0.6:
        return " ".join(parts)
    return f"{item} - ${F['L1']}\n" + "\n".join(parts)


def r_spec(rng, parts, F, spec):
    r = rng.random()
    if r < 0.3:
        return {"product": F["gadget"], "sheet": parts}
    if r < 0.45:
        return " ".join(parts)
    return f"Spec sheet - {F['gadget']}\n" + _bullets(parts)


def r_cv(rng, parts, F, spec):
    r = rng.random()
    if r < 0.3:
        return {"candidate": F["A"], "location": F["city"], "cv": parts}
    if r < 0.45:
        return f"{F['A']}: " + " ".join(parts)
    return f"{F['A']} - CV\n{F['city']}\n\n" + _bullets(parts)


def r_job(rng, parts, F, spec):
    r = rng.random()
    head = f"{F['role'].capitalize()} - {F['co']}, {F['city']}"
    if r < 0.3:
        return {"job_title": F["role"], "company": F["co"], "location": F["city"], "posting": " ".join(parts)}
    if r < 0.45:
        return " ".join(parts)
    return head + "\n\n" + "\n".join(parts)


def r_clinic(rng, parts, F, spec):
    r = rng.random()
    if r < 0.35:
        return {"patient": F["A"], "visit_date": F["date"], "clinician": f"Dr {F['Bl']}", "note": " ".join(parts)}
    if r < 0.5:
        return " ".join(parts)
    return f"Visit note - {F['date']}\nPatient: {F['A']}\nClinician: Dr {F['Bl']}\n\n" + "\n".join(parts)


def r_intake(rng, parts, F, spec):
    matter = fill(rng.choice(spec.get("titles") or ["General enquiry"]), F)
    r = rng.random()
    if r < 0.35:
        return {"intake_date": F["date"], "client": F["A"], "matter": matter, "notes": " ".join(parts)}
    if r < 0.5:
        return " ".join(parts)
    return f"Intake note - {F['date']}\nClient: {F['A']}\nMatter: {matter}\n\n" + " ".join(parts)


def r_news(rng, parts, F, spec):
    head = fill(rng.choice(["{town} this week", "Local news: {town}", "News in brief", "{town} roundup"]), F)
    body = " ".join(parts)
    return body if rng.random() < 0.4 else head + "\n\n" + body


def r_announce(rng, parts, F, spec):
    r = rng.random()
    if r < 0.3:
        return {"course": F["course"], "from": f"{F['B']} (coordinator)", "announcement": " ".join(parts)}
    if r < 0.45:
        return " ".join(parts)
    return f"{F['course']} - notice to participants\n\n" + " ".join(parts) + f"\n\n{F['B']}, course coordinator"


def r_itin(rng, parts, F, spec):
    r = rng.random()
    if r < 0.35:
        return {"traveller": F["A"], "trip": f"{F['city']} to {F['city2']}", "items": parts}
    if r < 0.5:
        return " ".join(parts)
    return f"Itinerary for {F['A']} ({F['city']} - {F['city2']})\n" + _bullets(parts)


def r_invoice(rng, parts, F, spec):
    lines, notes = [], []
    for p in parts:
        if " | " in p:
            d, a = p.split(" | ")
            lines.append((d, a))
        else:
            notes.append(p)
    if not lines:
        lines.append((fill("Consulting services, {n} hours", F), F["L1"]))
    total = sum(float(a) for _, a in lines)
    receipt = spec.get("receipt")
    if rng.random() < 0.45:
        st = {"receipt": F["ref"].replace("INV", "RC")} if receipt else {"invoice": F["ref"]}
        st.update({"from": F["co"], "date": F["date"]})
        if not receipt:
            st["bill_to"] = F["co2"]
        st["lines"] = [{"item": d, "amount": float(a)} for d, a in lines]
        st["total"] = round(total, 2)
        if notes:
            st["notes"] = " ".join(notes)
        return st
    head = (f"RECEIPT {F['ref'].replace('INV', 'RC')} - {F['co']}, {F['date']}" if receipt else
            f"INVOICE {F['ref']}\nFrom: {F['co']}\nTo: {F['co2']}\nDate: {F['date']}")
    body = "\n".join(f"{d} .... {a}" for d, a in lines)
    return head + "\n\n" + body + f"\nTOTAL .... {total:.2f}" + ("\n\n" + "\n".join(notes) if notes else "")


FMT = {
    "email": dict(render=r_email, ctx=[
        "Hope your week is going well.", "Thanks again for your help with the {co2} account last month.",
        "I'm working from the {city} office this week.", "{Cf} from our finance team is copied here.",
        "Our new office address is in the signature below.", "The figures from last quarter looked good overall.",
        "Sorry this took me a while to put together.", "The team in {city2} sends their regards.",
        "I've moved to a new desk phone number, 0{nn}{n} 55{n}{nn}."],
        filler=["-----Original message-----\nFrom: {B}\nSent: {date}\nThanks for the update. I've shared it with the wider group and we'll look at it in our planning session. Have a good weekend.",
                "P.S. The car park at the {city} office will be closed for resurfacing next month, so please use the public car park on Station Road if you visit.",
                "This message and any attachments are confidential and intended only for the named recipient. If you received it in error, please delete it and inform the sender. {co} is registered in {city}."]),
    "meeting": dict(render=r_meeting, ctx=[
        "{Cf} gave an update on the customer survey; response rate {pct}%.", "The new intranet page is live.",
        "Minutes of the last meeting accepted without changes.", "{Cf} will circulate the slides.",
        "Quarterly numbers: revenue up {pct}% on last year.", "Next meeting: {day} at 10:00.",
        "Office move to the third floor confirmed for {month}.", "{Cf} welcomed two interns joining the support desk.",
        "Reminder to submit timesheets by the end of the month."], filler=["Round-table: {Cf} reported that the customer survey closed with {nn}0 responses, mostly positive about onboarding and less positive about the help centre search. {A} noted that the team offsite is still planned for the spring and asked people to share dietary requirements with the office manager.", "Any other business: the kitchen on the second floor will be repainted, so please remove personal items from the shelves by the end of the month. The IT desk reminded everyone to install the latest laptop updates before Friday."]),
    "contract": dict(render=r_clauses, titles=["Services Agreement between {co} and {co2}", "{co} - Master Services Agreement",
                                                "Supply contract: {co2} (supplier) and {co} (client)", "Software licence agreement - {co}"], ctx=[
        "This agreement is governed by the laws of the country where {co} is registered.",
        "Each party shall keep the other party's confidential information secret.",
        "Invoices are payable within 30 days of receipt.", "Any amendment must be agreed in writing by both parties.",
        "Headings are for convenience only and do not affect interpretation.",
        "Personal data will be processed in line with applicable data protection law.",
        "Neither party is liable for delays caused by events beyond its reasonable control."], filler=["Definitions. In this document, \"Business Day\" means a day other than a Saturday, Sunday or public holiday; \"Services\" means the services described in the schedule; and references to a party include its permitted successors. Words in the singular include the plural."]),
    "policy": dict(render=r_clauses, titles=["{co} - Employee handbook (extract)", "{co} workplace policy", "Customer terms - {co}", "{co} policy update"], ctx=[
        "This policy applies from {date}.", "Questions about this policy can be sent to {B} in People Operations.",
        "Managers must make sure their teams have read this policy.", "Expenses are reimbursed according to the separate expenses policy.",
        "This policy is reviewed every year.", "Where this policy conflicts with local law, local law applies."], filler=["Purpose. This document explains how we work together and what everyone can expect. It is written in plain language; if anything is unclear, please ask before acting on it. It may be updated from time to time, and the latest version is always on the intranet."]),
    "lease": dict(render=r_clauses, titles=["Tenancy agreement - Flat {n}, {nn} Mill Lane, {town}", "Residential lease: {town}", "Lease for {nn} Harbour Road, {town}"], ctx=[
        "The rent is due on the first day of each month.", "The deposit is held in a government-approved scheme.",
        "The tenant must report repairs to the landlord promptly.", "The landlord will give 24 hours' warning before visiting.",
        "The tenant is responsible for the electricity and internet bills.", "The initial term is twelve months."], filler=["The property is let with the furniture listed in the inventory, which both parties have checked. At the end of the tenancy the tenant must return all keys and leave the property in the same condition, allowing for fair wear and tear."]),
    "listing": dict(render=r_listing, ctx=[
        "Smoke-free home.", "Selling because I'm moving to {city2}.", "Measurements are in the photos.", "Price is firm.",
        "Happy to answer questions.", "Cash or bank transfer.", "Colour as shown in the pictures.", "Message me for more photos."], filler=["About me: I'm clearing out the flat before a move, so there are a few other items on my profile as well. I usually reply within a few hours in the evening. If the ad is still up, the item is still available."]),
    "spec": dict(render=r_spec, ctx=[
        "Weight: {nn}0 g.", "Colours: graphite, sand, teal.", "Bluetooth 5.3.", "Dimensions: 14 x 7 x 3 cm.",
        "Operating temperature: 0-40 C.", "Display: 1.4-inch colour screen.", "Companion app for Android and iOS.",
        "Model number: {co2}-{nn}{n}."], filler=["Safety: keep away from water and heat sources. Do not attempt to take the housing apart; there are no user-serviceable parts inside. Dispose of the product at an electronics recycling point in line with local rules."]),
    "cv": dict(render=r_cv, ctx=[
        "Education: BA in economics, University of {town}.", "Skills: Excel, SQL, presentation design.",
        "Volunteer treasurer at a local running club.", "Interests: climbing, chess, cooking.",
        "{year}-present: analyst at {co}, preparing monthly reporting.", "Certificates: first aid ({year}).",
        "References available on request."], filler=["Profile: reliable and curious professional with a background in reporting and process improvement. Enjoys turning messy spreadsheets into clear dashboards and explaining numbers to non-specialists. Looking for a role with room to learn and a friendly, collaborative culture."]),
    "job": dict(render=r_job, ctx=[
        "You'll join a team of {n} people.", "We offer 28 days of holiday.", "Start date: {month}.",
        "Apply with a CV and a short cover note.", "You'll work closely with our customer team.",
        "We are an equal opportunities employer.", "Closing date for applications: {date}."], filler=["About us: {co} is a growing company based in {city}, with customers across several industries. We value clear communication, kindness and doing things properly. Our office has a quiet room, bike storage and a kitchen stocked with good coffee."]),
    "clinic": dict(render=r_clinic, ctx=[
        "Came in for a routine check.", "Blood pressure 124/80.", "Weight recorded.", "Patient works night shifts.",
        "Non-smoker.", "Accompanied by partner.", "Contact details updated.", "Patient asked about the flu clinic dates."], filler=["History reviewed with the patient. Lives with partner, walks to work, sleeps about seven hours a night. Asked about general wellbeing; no concerns raised about mood or appetite. Encouraged to keep up regular exercise."]),
    "intake": dict(render=r_intake, ctx=[
        "Client prefers contact by email.", "Client called from a mobile; callback number on file.",
        "No conflict of interest found.", "Client is available on weekday mornings.", "Interpreter not needed.",
        "Client was referred to us by a friend."], filler=["Background: the client explained the situation in detail and was calm throughout the call. They would like to understand their options before deciding on next steps and asked for an estimate of likely costs. Standard client care letter to be sent."]),
    "news": dict(render=r_news, ctx=[
        "{town} has about {nn},000 residents.", "Local elections are due next spring.",
        "The town's library reopened last month after repairs.", "Traffic on the ring road has been heavy since the roadworks began.",
        "The weather service expects a dry weekend.", "The town's football club was promoted last season."], filler=["In other news, the {town} youth orchestra will perform in the market square on Saturday afternoon, and the weekly farmers' market has added six stalls selling local cheese, bread and flowers. Bus route 7 will be diverted for two weeks while the gas main on Quay Street is replaced."]),
    "announce": dict(render=r_announce, ctx=[
        "Sessions run from 18:00 to 20:00.", "The reading list is on the course page.",
        "Questions can be sent to {Bf}, the course coordinator.", "Parking is available behind the building.",
        "Thank you all for a great start to the term.", "Please arrive a few minutes early."], filler=["A reminder about the building: the main entrance is locked after 18:30, so please use the side door by the car park. Tea and coffee are available in the common room during the break. If you need any adjustments to take part fully, let the coordinator know."]),
    "itin": dict(render=r_itin, ctx=[
        "Check-in at Hotel {hotel} from 15:00.", "Meeting at {co2}, {day} 10:00.", "Dinner reservation at 19:30 near the hotel.",
        "Passport must be valid for six months.", "Per diem: {amt} per day.", "Conference badge pickup at the registration desk.",
        "Emergency contact: {B}."], filler=["Travel policy reminders: keep all receipts, book through the company portal where possible, and send any changes to the travel desk. In case of disruption, call the 24-hour assistance line printed on your confirmation."]),
    "invoice": dict(render=r_invoice, ctx=[
        "Consulting services, {n} hours | {L1}", "Printer paper, 5 boxes | {L3}", "Software licence, annual | {L2}",
        "Travel expenses | {L4}", "Bank: Tessel Bank, account ending 0{nn}.", "PO number: PO-{nn}{n}.", "Thank you for your business."], filler=["Terms: please quote the invoice number with your remittance. Queries about this document should be raised within 14 days of the invoice date."]),
    "receipt": dict(render=r_invoice, ctx=[
        "Linen shirt | {L2}", "Ceramic mug | {L4}", "Notebook, A5 | {L3}", "Garden gloves | {L5}", "Served by {Cf}.",
        "Thank you for shopping with us."], filler=[]),
}


# --------------------------------------------------------------------------------------------
# Task specs (question + sentence banks); see module docstring for the bank keys
# --------------------------------------------------------------------------------------------
SPECS = [
    # ---------------------------------------------------------------- emails
    dict(id="email-reply-friday", dom="business_email", fmt="email", q="The email asks the recipient to reply by Friday.",
         avoid=["friday", "reply", "respond", "let me know", "get back", "answer"],
         T=["Could you let me know by Friday whether the quote works for you?", "Please reply by Friday so we can lock in the booking.",
            "I need your answer on the venue by Friday, {Bf}.", "Can you respond by Friday with the final headcount?"],
         TB=["If you could send me your thoughts no later than this Friday, that would be ideal.",
             "Get back to me by the end of the week, Friday at the latest, please."],
         TD=["No rush on the invoice, but I do need your reply on the venue by Friday.",
             "I know it's not urgent for you, but please answer by Friday so I can book the room."],
         FD=["There's no need to reply by Friday; any time next week is fine.",
             "I mentioned Friday earlier, but please ignore that deadline and reply whenever you've had a look."],
         FB=["Please reply by next Tuesday so we can lock in the booking.", "I'll reply to your questions by Friday.",
             "{Cf} has asked the supplier to respond by Friday; nothing is needed from you.", "Could you send your answer sometime next month?"],
         FE=["Just sharing the slides from today's session for your records.", "Thanks again for a great workshop; the photos are in the shared folder."]),
    dict(id="email-meeting-cancelled", dom="business_email", fmt="email", q="Does the email cancel the meeting?",
         crit={"true": "Yes, the meeting is cancelled", "false": "No, the meeting is not cancelled"},
         avoid=["meeting", "cancel", "calendar", "agenda", "call off"],
         T=["I'm afraid we have to cancel {day}'s meeting with {co2}; it won't be rescheduled.", "Tomorrow's review meeting is cancelled.",
            "Please take the {day} meeting out of your calendar; it's called off."],
         TB=["We won't be meeting on {day} after all: {co2} pulled out of the project, so there is nothing left to discuss."],
         TD=["Not moving it, not shortening it: the {day} meeting is simply cancelled.",
             "No new date will be set; the {day} meeting is cancelled."],
         FD=["The {day} meeting is not cancelled; only the room has changed to {room}.", "Despite the rumours, we are still meeting on {day} as planned."],
         FB=["{Cf} has cancelled their attendance, but the {day} meeting itself goes ahead.",
             "If fewer than three people can make it, we may cancel the {day} meeting; I'll confirm on {date2}.",
             "The {day} lunch is cancelled, but the meeting before it goes ahead as planned."],
         FE=["Attached is the agenda for {day}'s meeting; please add any topics by noon.", "Looking forward to seeing everyone at the meeting on {day}."]),
    dict(id="email-attachment", dom="business_email", fmt="email",
         q={"claim": "The sender says a file is attached to this email.", "note": "Answer from the email text only."},
         avoid=["attach", "file", "link", "enclosed", "download"],
         T=["I've attached the signed delivery note.", "Please find the updated price list attached.", "The spreadsheet with this month's figures is attached."],
         TB=["You'll find the photos of the damage in the attachment."],
         TD=["I haven't changed anything in the draft, but I've attached it again so you have the latest copy.",
             "Nothing new in the contract, though a copy is attached for your records."],
         FD=["I meant to attach the price list, but it's too large, so I'll share a download link instead.",
             "Nothing is attached; the figures are in the body below."],
         FB=["Could you attach the signed delivery note when you reply?", "I'll attach the report to tomorrow's email once it's final.",
             "{Cf} said the file would be attached to the next invoice."],
         FE=["Just a reminder that the office closes early on {day}.", "Great speaking with you earlier; let's catch up again after the holidays."]),
    dict(id="email-discount", dom="business_email", fmt="email", q="Does the sender offer the customer a discount?",
         avoid=["discount", "% off", "price", "offer", "cheaper"],
         T=["As an apology, we'd like to offer you {pct}% off your next order.", "I can take {pct}% off the total if you confirm today.",
            "We're happy to give you a {pct}% discount on the renewal."],
         TB=["We'll knock {pct}% off the annual plan and waive the delivery charge."],
         TD=["We don't normally do this, but I can offer you {pct}% off the annual plan.",
             "I can't change the delivery date, but I can give you {pct}% off the order."],
         FD=["Unfortunately we can't offer any discount on this order.",
             "I checked with my manager and a discount isn't possible this time."],
         FB=["You may want to ask {co2}; they sometimes run discounts in spring.",
             "Discounts are available for orders over 500 units; your order of {nn} units doesn't qualify."],
         FE=["Your order has been packed and will leave our warehouse on {day}.", "Your invoice for {date} is ready in the customer portal."]),
    # ---------------------------------------------------------------- meeting notes
    dict(id="meet-postpone-launch", dom="meeting_notes", fmt="meeting", q="The meeting decided to postpone the launch.",
         avoid=["launch", "postpone", "delay", "go-live", "release", "date"],
         T=["Decision: the launch moves from {d3} to {date2}.", "Agreed to delay the launch by {n} weeks to finish testing.",
            "Launch postponed until the payment issue is fixed (owner: {Bf})."],
         TB=["Everyone agreed the {d3} go-live can't hold; new target is {date2}."],
         TD=["Not cancelled, but the group did agree to push the launch back to {date2}.",
             "No objections were raised, so the launch is postponed to {date2}."],
         FD=["Postponing the launch was discussed and rejected; {d3} stands.",
             "{Bf} proposed a delay, but nobody supported it, so the launch stays on {d3}."],
         FB=["{Bf} will decide next week whether to postpone the launch.",
             "Agreed to postpone the internal training session; the launch date itself is unchanged.",
             "If the security review fails, the launch will be postponed; the review is due on {date2}."],
         FE=["Launch checklist reviewed; all items green for {d3}.", "Marketing shared the launch-day plan for {d3}."]),
    dict(id="meet-budget-approved", dom="meeting_notes", fmt="meeting", q="Was the proposed budget approved at the meeting?",
         avoid=["budget", "approv", "vote", "spending", "accepted"],
         T=["The proposed budget of {amt}k was approved unanimously.", "The committee approved the proposed budget as presented."],
         TB=["Vote on the spending plan for next year: 6 in favour, 1 against, carried."],
         TD=["No changes were requested; the proposed budget was approved as it stands.",
             "Not everyone was happy with the travel line, but the budget was approved."],
         FD=["The budget was not approved; finance asked for a revised version.",
             "Approval of the budget was expected but postponed to the next meeting."],
         FB=["The travel policy was approved; the budget will be voted on next month.",
             "{Bf} will approve the budget once the vendor quotes are in.",
             "The budget was approved last month; today's meeting only discussed hiring."],
         FE=["Team reviewed last quarter's spending against plan; no decisions taken."]),
    dict(id="meet-legal-review", dom="meeting_notes", fmt="meeting",
         q={"claim": "The legal team was asked to review the contract.", "note": "Based only on these notes."},
         avoid=["legal", "contract", "lawyer", "review", "finance"],
         T=["Action: legal to review the {co2} contract before signature.", "{Bf} will send the supplier contract to legal for review."],
         TB=["Contract with {co2} goes to our lawyers for a check before anyone signs."],
         TD=["Finance is not involved at this stage; the contract goes to legal for review.",
             "No signature yet: legal has been asked to review the contract first."],
         FD=["No legal review needed: the contract uses our standard template.",
             "Legal review of the contract was suggested, but the group decided against it."],
         FB=["Finance was asked to review the contract's payment terms.", "Legal will review the privacy notice; the contract is signed as is."],
         FE=["Contract with {co2} signed last week; first delivery due {date2}."]),
    dict(id="meet-hire", dom="meeting_notes", fmt="meeting", q="Did the team agree to hire another person?",
         avoid=["hire", "hiring", "position", "headcount", "role", "recruit", "intern", "joining"],
         T=["Agreed to open a position for a second support engineer.", "Decision: hire one more designer for the {co2} account.",
            "Approved: recruit an additional analyst for the data team."],
         TB=["Headcount +1 signed off for the data team; {Bf} to write the job ad."],
         TD=["Contractors won't be used; instead we'll hire a permanent analyst.", "No hiring freeze for us: one new tester will be recruited."],
         FD=["Hiring freeze stays: no new positions this quarter.",
             "We talked about hiring another tester but agreed to redistribute the work instead."],
         FB=["{Bf} will ask HR next week whether a new role can be opened.", "If the {co2} deal closes, we'll hire another analyst."],
         FE=["Reviewed onboarding of the two people who started in {month}."]),
    # ---------------------------------------------------------------- contracts, policies, leases
    dict(id="con-terminate-no-notice", dom="contracts", fmt="contract", q="Does the contract allow termination without notice?",
         avoid=["terminat", "notice", "end the agreement", "warning"],
         T=["Either party may terminate this agreement with immediate effect and without notice.",
            "The client may end the agreement at any time without giving notice."],
         TB=["No notice period applies: the agreement can be ended on the day a party decides."],
         TD=["Termination does not require prior notice; a written confirmation afterwards is enough."],
         FD=["This agreement may not be terminated without {n} weeks' written notice.",
             "Termination without notice is not permitted under any circumstances."],
         FB=["Either party may terminate with {nn} days' written notice.",
             "The supplier may suspend deliveries without notice if invoices are unpaid; termination requires 30 days' notice."],
         FE=["The agreement runs for a fixed term of {n} years and cannot be ended early."]),
    dict(id="con-autorenew", dom="contracts", fmt="contract", q="The contract renews automatically.",
         avoid=["renew", "term", "extend", "expir", "roll", "ends"],
         T=["This agreement renews automatically for successive one-year periods.",
            "At the end of each term the agreement is extended automatically for another {n} months."],
         TB=["Unless either party objects in writing, a new twelve-month term begins when the current one ends."],
         TD=["The customer does not need to sign anything to continue; the term rolls over automatically."],
         FD=["This agreement does not renew automatically; a new order form must be signed.",
             "There is no automatic renewal. The agreement ends on {date}."],
         FB=["The supplier will send a renewal offer {nn} days before expiry; the agreement continues only if the customer accepts it in writing.",
             "The customer may choose to renew by giving notice at least {nn} days before the end of the term."],
         FE=["The licence covers one project and ends when the project is delivered."]),
    dict(id="pol-fully-remote", dom="contracts", fmt="policy", q="Does the policy let employees work fully remotely?",
         avoid=["remote", "home", "office", "on site", "hybrid", "location"],
         T=["Employees may work from home every day if they wish.",
            "All roles covered by this policy can be done fully remotely; there is no office attendance requirement."],
         TB=["Staff choose where they work; coming into the office is optional."],
         TD=["There is no minimum number of office days: employees may work fully remotely."],
         FD=["Fully remote work is not allowed; staff are expected in the office at least two days a week.",
             "Remote-only arrangements are not offered under this policy."],
         FB=["Employees may work from home up to two days a week.", "Fully remote work is available to contractors only; employees work on site."],
         FE=["All employees work on site at the {city} office."]),
    dict(id="pol-refund-14", dom="contracts", fmt="policy", q="The policy gives customers a refund if they cancel within 14 days.",
         avoid=["refund", "cancel", "14", "fourteen", "days", "money back"],
         T=["Customers who cancel within 14 days of purchase receive a full refund.", "Cancel in the first fourteen days and we refund what you paid."],
         TB=["You have a 14-day cooling-off period; anything paid is returned if you withdraw during it."],
         TD=["No questions asked: any cancellation within 14 days is refunded."],
         FD=["Fees are not refundable, even if you cancel within 14 days.",
             "Cancellations are accepted within 14 days, but no refund is given; the amount stays on the account as credit."],
         FB=["Customers who cancel within 7 days receive a full refund; after that no refund is given.",
             "If we cancel your order, you receive a full refund within 14 days."],
         FE=["All payments are final and non-refundable."]),
    dict(id="lease-pets", dom="contracts", fmt="lease", q="The lease allows the tenant to keep pets.",
         avoid=["pet", "animal", "dog", "cat"],
         T=["The tenant may keep pets at the property.", "Cats and small dogs are permitted in the flat."],
         TB=["Animals are welcome; the tenant only needs to repair any damage they cause."],
         TD=["No extra deposit is charged for pets, and the tenant may keep them in the flat."],
         FD=["No pets are allowed at the property.", "The tenant shall not keep any animal in the flat, including cats."],
         FB=["The landlord may keep a dog in the shared garden; tenants may not keep animals.",
             "Pets may be allowed in future if the building owners change the rules; until then they are not permitted."],
         FE=["The tenant must keep the flat clean and free of animals."]),
    dict(id="con-subcontract", dom="contracts", fmt="contract", q="May the supplier use subcontractors under this agreement?",
         crit={"true": "Yes", "false": "No"},
         avoid=["subcontract", "third part", "delegat", "staff", "employee", "supplier"],
         T=["The supplier may subcontract any part of the services.",
            "The supplier is free to engage subcontractors and remains responsible for their work."],
         TB=["Parts of the work may be delegated by the supplier to other firms of its choosing."],
         TD=["The supplier does not need the client's consent to use subcontractors."],
         FD=["The supplier shall not subcontract any part of the services.",
             "Subcontracting is not permitted; all work must be carried out by the supplier's own staff."],
         FB=["The client may use subcontractors for installation; the supplier must perform its services itself."],
         FE=["All work must be carried out by the supplier's own employees."]),
    # ---------------------------------------------------------------- listings and spec sheets
    dict(id="list-ships-intl", dom="ecommerce_listings", fmt="listing", q="The listing says the item ships internationally.",
         avoid=["ship", "post", "abroad", "deliver", "pickup", "collect", "countr"],
         T=["Ships worldwide.", "We ship to most countries, including the US, Japan and Australia.", "International shipping available at checkout."],
         TB=["Buyers abroad welcome; postage is calculated by destination country."],
         TD=["No local pickup, but we happily post to any country."],
         FD=["Sorry, no international shipping.", "Domestic shipping only; we don't send parcels abroad."],
         FB=["Ships within the UK only.", "Free shipping within {city}; other areas by arrangement, same country only."],
         FE=["Local pickup only, in {city}.", "Collection in person from {city}; no delivery."]),
    dict(id="list-sold-new", dom="ecommerce_listings", fmt="listing", q="Is the item sold as new?",
         avoid=["new", "used", "condition", "refurb", "sealed", "scratch", "open", "bought", "box", "wear"],
         T=["Brand new, still sealed in the original box.", "Condition: new, never opened."],
         TB=["Unopened gift, tags still on, never used."],
         TD=["Not refurbished, not used: this is a brand-new unit."],
         FD=["Not new: used for about a year, works perfectly.", "Looks like new, but it has been used a few times."],
         FB=["Refurbished by the manufacturer, with a fresh battery.", "The box is new; the item itself is second-hand."],
         FE=["Well used, some scratches on the side.", "Second-hand, {n} years old, fully working."]),
    dict(id="spec-charger", dom="ecommerce_listings", fmt="spec", q="The spec sheet says a charger is included in the box.",
         avoid=["charg", "adapter", "box", "cable", "includ", "battery", "power", "contents"],
         T=["In the box: device, USB-C cable, 30 W charger, quick-start guide.", "Charger included."],
         TB=["Package contents: the unit, a wall adapter for charging and a cable."],
         TD=["A case is not included, but the charger is."],
         FD=["Charger not included; use any USB-C adapter.", "In the box: device and cable (no power adapter)."],
         FB=["A charger is available separately for {amt}.", "Charger included with the Pro bundle only; this sheet describes the standard version."],
         FE=["In the box: device, strap, quick-start guide."]),
    dict(id="spec-warranty-2y", dom="ecommerce_listings", fmt="spec", q="Does the product come with a warranty of at least two years?",
         avoid=["warrant", "guarantee", "year", "month"],
         T=["Warranty: 2 years.", "Covered by a three-year manufacturer warranty.", "Warranty: 5 years on the motor, 2 years on everything else."],
         TB=["Warranty: 24 months from the date of purchase."],
         TD=["No extended plan needed: the standard warranty already lasts two years."],
         FD=["Warranty: 1 year (not two years, as printed in older brochures)."],
         FB=["Warranty: 12 months; can be extended to 2 years for an extra fee.", "Warranty: 18 months."],
         FE=["No warranty; sold as is."]),
    dict(id="list-assembly", dom="ecommerce_listings", fmt="listing", item="furn", q="The price includes assembly.",
         avoid=["assembl", "fitter", "flat", "put it together", "price", "firm", "tools"],
         T=["Price includes delivery and assembly.", "Our fitter will assemble it for free on delivery."],
         TB=["We put it together for you at no extra cost."],
         TD=["No extra charge for assembly; it's included in the price."],
         FD=["Assembly not included.", "Flat-packed; assembly is not part of the price."],
         FB=["Assembly available for an extra {amt}.", "Free assembly was offered until {date}; that offer has ended."],
         FE=["Self-assembly flat pack; tools and instructions in the box."]),
    # ---------------------------------------------------------------- CVs and job postings
    dict(id="cv-managed-team", dom="hr_recruiting", fmt="cv", q="The candidate has managed a team.",
         avoid=["manag", "team", "lead", "report", "supervis"],
         T=["Team lead at {co2} for four years, managing six analysts.", "Managed a team of {n} engineers at {co2} for three years."],
         TB=["Line manager for four support agents at {co2}, responsible for hiring and reviews."],
         TD=["No formal title change, but from {year} ran the four-person QA team at {co2}."],
         FD=["Has not managed people yet; looking for a first team-lead role.", "Worked alongside team leads but has never managed a team."],
         FB=["At {co2}, reported to a manager who led a team of {nn}; no direct reports.",
             "Managed the {co2} website migration project alone; no direct reports."],
         FE=["Junior analyst at {co2} since {year}, building weekly sales dashboards as an individual contributor."]),
    dict(id="cv-german", dom="hr_recruiting", fmt="cv", q="Does the candidate speak German?",
         avoid=["german", "language", "speak", "french", "spanish", "english", "dutch", "portuguese", "fluent"],
         T=["Languages: English (native), German (fluent).", "Fluent in German after six years working in Hamburg."],
         TB=["Languages: Spanish, German (B2)."],
         TD=["Not a native speaker, but speaks German at a professional level."],
         FD=["German: no, but happy to learn.", "Languages: English, French (no German)."],
         FB=["Languages: English, Dutch. Worked for a German company where the working language was English."],
         FE=["Languages: English (native), Portuguese (conversational)."]),
    dict(id="job-salary-range", dom="hr_recruiting", fmt="job", q="The job posting states a salary range.",
         avoid=["salary", "pay", "bonus", "compensation", "wage", "offer"],
         T=["Salary: {s1}-{s2} per year.", "We offer between {s1} and {s2} a year, depending on experience."],
         TB=["Pay band for this role: {s1} to {s2} annually."],
         TD=["No bonus scheme, but the salary range is {s1}-{s2}."],
         FD=["Salary is not disclosed at this stage.", "We don't publish salary ranges; pay is discussed at interview."],
         FB=["Salary: {s1} per year, fixed.", "Candidates are asked to state their expected salary range in the application."],
         FE=["Benefits include a cycle-to-work scheme and free lunches on Fridays."]),
    dict(id="job-degree", dom="hr_recruiting", fmt="job",
         q={"question": "Does the posting require a university degree?", "note": "Required means mandatory, not just preferred."},
         avoid=["degree", "university", "bachelor", "qualification", "require"],
         T=["Requirements: a university degree in computer science or a related field.", "You must hold a bachelor's degree in accounting."],
         TB=["Required: a completed bachelor's or master's degree."],
         TD=["No prior experience required, but applicants must have a university degree."],
         FD=["No degree required: we care about what you can do.", "A degree is not necessary for this role."],
         FB=["A degree is nice to have but not required.", "Requirements: two years of experience; a university degree is a plus."],
         FE=["Requirements: two years of warehouse experience and a forklift licence."]),
    dict(id="cv-driving-licence", dom="hr_recruiting", fmt="cv", q="The candidate holds a driving licence.",
         crit={"true": "Holds a driving licence", "false": "Does not hold one"},
         avoid=["licen", "driv", "car", "certificate"],
         T=["Full driving licence (category B).", "Holds a clean driving licence and has own car."],
         TB=["Licence: category B, held for 8 years, no points."],
         TD=["No car, but holds a full driving licence."],
         FD=["Does not hold a driving licence.", "No driving licence; relies on public transport."],
         FB=["Currently taking driving lessons; test booked for {month}.", "Holds a forklift operator certificate (no car driving licence)."],
         FE=["Certificates: first aid ({year}), food hygiene level 2."]),
    # ---------------------------------------------------------------- clinic notes
    dict(id="clin-followup-booked", dom="clinical_notes", fmt="clinic", q="A follow-up appointment was booked.",
         avoid=["follow", "book", "appointment", "return", "review", "visit", "reception", "flu clinic"],
         T=["Follow-up booked for {date2} at 10:30.", "Review appointment arranged in {n} weeks; confirmation sent by text."],
         TB=["Patient to come back on {date2}; slot reserved with Dr {Bl}."],
         TD=["No tests needed today; follow-up visit booked for {date2}."],
         FD=["No follow-up needed; patient to call if symptoms return.", "Follow-up was offered but the patient declined to book."],
         FB=["Patient to book a follow-up at reception if still needed in two weeks.",
             "Reception will phone the patient to arrange a follow-up once the lab results are in."],
         FE=["Seen for a routine blood pressure check; discharged with no further appointments."]),
    dict(id="clin-allergy", dom="clinical_notes", fmt="clinic", q="Does the note record an allergy for the patient?",
         avoid=["allerg", "react", "rash", "hives", "penicillin", "peanut"],
         T=["Allergies: penicillin (rash).", "Allergy recorded: peanuts."],
         TB=["Reacts to ibuprofen with hives; added to the allergy list."],
         TD=["No drug allergies, but a latex allergy is recorded."],
         FD=["Allergies: none known.", "Patient asked about penicillin allergy testing; no allergy is recorded."],
         FB=["Patient's son has a peanut allergy (noted on the family file); the patient has none.",
             "Possible hay fever mentioned; not confirmed, nothing added to the allergy list."],
         FE=["Routine vaccination given; no reaction observed. Allergy list reviewed: empty."]),
    dict(id="clin-prescription", dom="clinical_notes", fmt="clinic",
         q={"claim": "A prescription was issued at this visit.", "note": "Only count what happened at this visit."},
         avoid=["prescri", "script", "pharmac", "medic", "dose", "tablet", "mg"],
         T=["Prescribed amoxicillin 500 mg three times a day for 7 days.", "Repeat prescription for the inhaler issued today."],
         TB=["E-script for eye drops sent to the patient's usual pharmacy."],
         TD=["No change to the dose; a new prescription was issued for another three months."],
         FD=["No prescription issued; advised rest and fluids.", "Patient asked for antibiotics; not prescribed."],
         FB=["Existing prescription from last year continues; nothing new issued today.",
             "A prescription will be issued at the next visit if blood tests are normal."],
         FE=["Wound dressing changed; healing well."]),
    dict(id="clin-referral", dom="clinical_notes", fmt="clinic", q="Was the patient referred to a specialist?",
         crit={"true": "Yes", "false": "No"},
         avoid=["refer", "specialist", "dermatolog", "cardiolog", "letter", "hospital"],
         T=["Referred to dermatology at {city} General.", "Referral to cardiology sent today."],
         TB=["Letter sent to the orthopaedic clinic asking them to see the patient."],
         TD=["Not urgent, but referred to the ENT clinic (routine)."],
         FD=["Referral not needed at this stage.", "Patient asked for a dermatology referral; declined, review in 4 weeks instead."],
         FB=["Will refer to dermatology if there is no improvement after 6 weeks.",
             "Patient already under the care of a cardiologist since {year}; no new referral."],
         FE=["Minor cut cleaned and closed with adhesive strips."]),
    # ---------------------------------------------------------------- legal intake
    dict(id="legal-written-contract", dom="legal_intake", fmt="intake", titles=["Building works dispute", "Unpaid invoice", "Dispute with a contractor"],
         q="The client has a written contract with the other party.",
         avoid=["contract", "agree", "sign", "paper", "document", "verbal", "writing"],
         T=["Client has a signed written contract with {co2}, dated {d3}.", "Client brought a copy of the signed agreement with the builder."],
         TB=["Terms were set out in a document both sides signed in {month}."],
         TD=["Nothing was agreed by phone; the arrangement is in a signed written contract."],
         FD=["There is no written contract; everything was agreed verbally.", "Client says a contract was promised but never signed."],
         FB=["The client's neighbour has a written contract with the same builder; the client only had a verbal agreement."],
         FE=["Client paid cash for the work and received no paperwork of any kind."]),
    dict(id="legal-complaint-filed", dom="legal_intake", fmt="intake", titles=["Workplace dispute", "Housing disrepair", "Consumer complaint"],
         q="Has the client already filed a formal complaint?",
         avoid=["complain", "grievance", "filed", "lodg", "submit"],
         T=["Client filed a formal complaint with the company on {d3}.", "A written complaint was submitted to the housing office last month."],
         TB=["Client lodged a grievance with HR on {d3}; reference GR-{nn}."],
         TD=["No reply yet, but the client did submit a formal complaint on {d3}."],
         FD=["Client has not filed any complaint yet.", "Client drafted a complaint but never sent it."],
         FB=["Client's colleague filed a complaint; the client has not.", "Client plans to file a complaint next week if nothing changes."],
         FE=["Client first noticed the problem on {d3} and has not contacted anyone about it yet."]),
    dict(id="legal-hearing-set", dom="legal_intake", fmt="intake", titles=["Employment claim", "Small claim", "Tenancy dispute"],
         q="A hearing date has been set.",
         avoid=["hearing", "court", "tribunal", "mediation", "claim"],
         T=["Hearing listed for {date2} at the {town} county court.", "The tribunal has fixed the hearing for {date2}."],
         TB=["Court letter received: the case will be heard on {date2}."],
         TD=["No settlement talks yet; hearing scheduled for {date2}."],
         FD=["No hearing date has been set.", "Hearing date still to be confirmed by the court."],
         FB=["Mediation session booked for {date2}; a hearing will only be listed if mediation fails.",
             "Client expects a hearing around {month}, but the court has not given a date."],
         FE=["Claim not yet filed; client is still collecting documents."]),
    # ---------------------------------------------------------------- local news
    dict(id="news-bridge-approved", dom="local_news", fmt="news", q="The council approved the new bridge.",
         avoid=["bridge", "council", "vote", "approv", "river", "crossing", "plans"],
         T=["{town} council voted 9-4 on {day} to approve the new footbridge over the river.",
            "Councillors approved plans for the {town} bridge, with work due to start in {month}."],
         TB=["The go-ahead for the new river crossing came at {day}'s council session, after a long debate."],
         TD=["Not everyone was happy, but the council approved the bridge plans."],
         FD=["The council did not approve the bridge; the vote was postponed to {month}.",
             "The bridge was debated for three hours, but no vote was taken."],
         FB=["The regional transport board approved funding for the bridge; the council will vote on the plans in {month}.",
             "The council approved a new car park; the bridge proposal was withdrawn."],
         FE=["Residents met on the riverbank on {day} to discuss whether a bridge would be useful; no proposal has been submitted."]),
    dict(id="news-festival-cancelled", dom="local_news", fmt="news", q="Was the festival cancelled?",
         avoid=["festival", "cancel", "postpone", "ticket", "fireworks"],
         T=["Organisers have cancelled this year's {town} Lantern Festival.", "The {town} food festival will not go ahead this year; ticket holders will get refunds."],
         TB=["There will be no {town} Lantern Festival this year, organisers said on {day}."],
         TD=["Not postponed: the {town} festival is cancelled outright."],
         FD=["Despite heavy rain, the {town} festival was not cancelled and went ahead on {day}.",
             "Rumours of a cancellation were denied: the {town} festival goes ahead."],
         FB=["The {town} festival has moved to {month}; all tickets remain valid.",
             "The fireworks show was cancelled, but the rest of the {town} festival goes ahead."],
         FE=["The {town} Lantern Festival opens on {day} with {nn} stalls."]),
    dict(id="news-jobs-200", dom="local_news", fmt="news", q="The new plant will create more than 200 jobs.",
         avoid=["job", "employ", "staff", "worker", "people", "residents"],
         T=["The plant near {town} is expected to employ about {j} people.", "The factory will bring {j} new jobs to {town}."],
         TB=["The factory outside {town} will bring {j1} new jobs."],
         TD=["Not 100 jobs, as first reported, but {j}, the company says of its new {town} plant."],
         FD=["Claims that the {town} plant would create 500 jobs were wrong; the company says about {js}."],
         FB=["The new plant in {town} will create {jb} jobs."],
         FE=["The new {town} plant will be largely automated, with a staff of {js}."]),
    dict(id="news-mayor-resigned", dom="local_news", fmt="news", q="Did the mayor resign?",
         avoid=["mayor", "resign", "step", "office"],
         T=["{town}'s mayor, {A}, resigned on {day}.", "Mayor {A} of {town} stepped down after {n} years in office."],
         TB=["{A} has left the {town} mayor's office with immediate effect, the council confirmed."],
         TD=["No scandal was involved: {town} mayor {A} resigned for family reasons."],
         FD=["Mayor {A} rejected calls to resign.", "Reports that the {town} mayor had resigned were false, the council said."],
         FB=["Deputy mayor {B} resigned on {day}; mayor {A} remains in office.",
             "Mayor {A} said they would resign if the {town} budget vote fails next month."],
         FE=["{town} mayor {A} opened the new library on {day}."]),
    # ---------------------------------------------------------------- courses
    dict(id="course-free", dom="education", fmt="announce", q="The course is free of charge.",
         avoid=["free", "fee", "cost", "pay", "price", "charge", "fund"],
         T=["The course is free; there is no fee.", "There is no cost to attend: places are funded by the {town} council."],
         TB=["Participants pay nothing, and materials are provided."],
         TD=["No registration fee, no material fee: the course costs nothing."],
         FD=["The course is not free: the fee is {amt}.", "Despite the 'free taster' flyer, the full course costs {amt}."],
         FB=["The first session is free; the remaining sessions cost {amt}.", "Materials are provided free; the course fee is {amt}."],
         FE=["Course fee: {amt}, payable at registration."]),
    dict(id="exam-open-book", dom="education", fmt="announce", q="Is the final exam open-book?",
         avoid=["exam", "book", "notes", "test", "material", "calculator", "bring", "reading"],
         T=["The final exam is open-book; bring your notes.", "You may use your textbook and notes during the final exam."],
         TB=["Final exam: any printed material is allowed in the room."],
         TD=["No phones, but notes and books are allowed in the final exam."],
         FD=["The final exam is closed-book.", "Notes are not allowed in the final exam."],
         FB=["The mid-term is open-book; the final exam is closed-book.", "Only a calculator may be taken into the final exam."],
         FE=["Final assessment: a two-hour written exam in room {room}; take only pens and ID."]),
    dict(id="class-online-next-week", dom="education", fmt="announce", q="The class moves online next week.",
         avoid=["online", "room", "week", "video", "virtual", "campus", "person", "link", "page"],
         T=["Next week's class will take place online; the link will be emailed.", "Next week the session is held on video call instead of in room {room}."],
         TB=["Next {day} we meet in the virtual classroom rather than on campus."],
         TD=["Room {room} is not available next week, so the class will be held online."],
         FD=["Next week's class is not moving online; we stay in room {room}.",
             "There were questions about going online next week: we're not, see you in person."],
         FB=["The class moves online from {month}; next week is still in room {room}.",
             "Next week's class is cancelled; a recording of last year's session is online."],
         FE=["Next week's class is in the lab, room {room}."]),
    # ---------------------------------------------------------------- itineraries
    dict(id="itin-layover", dom="travel", fmt="itin", q="The itinerary includes a layover.",
         avoid=["flight", "stop", "connect", "via", "change", "direct", "train", "layover", "airport", "drive"],
         T=["Flight 1: {city} to {hub}, 07:10-09:40. Flight 2: {hub} to {city2}, 11:25-14:05.", "Change planes in {hub}; 2 h 15 min connection."],
         TB=["Outbound: {city} to {city2} via {hub} (1 stop)."],
         TD=["No overnight stay: 90-minute connection in {hub} before the flight to {city2}."],
         FD=["Direct flight, no stops: {city} to {city2}, 08:05-11:30.", "Non-stop flight {city} to {city2}; the stop in {hub} shown in the first draft was removed."],
         FB=["Direct train {city} to {city2}, no changes.", "Direct flight {city} to {city2}; a stopover in {hub} was offered as an option but not booked."],
         FE=["Drive from {city} to {city2}, about 3 hours."]),
    dict(id="itin-breakfast", dom="travel", fmt="itin", q="Breakfast is included in the hotel booking.",
         avoid=["breakfast", "hotel", "room", "dinner", "meal", "rate", "per diem"],
         T=["Hotel {hotel}, 3 nights, breakfast included.", "Hotel {hotel}: room rate includes daily breakfast."],
         TB=["Hotel {hotel}, bed & breakfast rate, 2 nights."],
         TD=["Hotel {hotel}: no dinner, but breakfast is included in the rate."],
         FD=["Hotel {hotel}: breakfast not included (available for {amt} per day).", "Hotel {hotel}, room only, no breakfast."],
         FB=["Breakfast is served on the return flight; Hotel {hotel} booking is room only."],
         FE=["Self-catering apartment with kitchen, 4 nights."]),
    dict(id="itin-rental-car", dom="travel", fmt="itin", q="Is a rental car booked for the trip?",
         avoid=["car", "taxi", "train", "transfer", "shuttle", "vehicle", "drive", "airport"],
         T=["Rental car: {carco}, pick-up at {city2} airport on {date}.", "Car hire confirmed with {carco}: compact class, 4 days."],
         TB=["Vehicle reserved with {carco} for collection on arrival."],
         TD=["No train tickets needed: a rental car is booked from the airport."],
         FD=["No rental car booked; taxis can be expensed.", "Car hire was quoted by {carco} but not booked."],
         FB=["Airport transfer by hotel shuttle booked.", "A rental car can be booked on arrival if needed."],
         FE=["Train from {city} to {city2}, then a short walk to the office."]),
    dict(id="itin-return-sunday", dom="travel", fmt="itin", q="The traveller returns on a Sunday.",
         avoid=["return", "sunday", "monday", "saturday", "back home", "homebound", "outbound", "{day}"],
         T=["Return flight: Sunday {date2}, 18:40.", "Back home on Sunday evening ({date2})."],
         TB=["Homebound train leaves at 16:05 on Sunday {date2}."],
         TD=["Not Saturday as first planned: the return is now on Sunday {date2}."],
         FD=["The return was going to be on Sunday, but it has been moved to Monday {date2}."],
         FB=["Outbound Sunday {date}, return Friday {date2}.", "Return: Monday {date2}, 07:15."],
         FE=["Return: Wednesday {date2}, 19:20."]),
    # ---------------------------------------------------------------- invoices and receipts
    dict(id="inv-late-fee", dom="finance_invoices", fmt="invoice", q="The invoice includes a late fee.",
         avoid=["late", "overdue", "fee", "interest", "penalt"],
         T=["Late payment fee | {fee}", "Late fee ({ref2} overdue {nn} days) | {fee}", "Late fee | {fee}"],
         TB=["Charge for paying the previous balance after the due date | {fee}"],
         TD=["Late fee (flat; no interest charged this month) | {fee}"],
         FD=["No late fees apply to this invoice.", "The late fee has been waived and is not charged on this invoice."],
         FB=["A late fee of 5% will be added if this invoice is not paid by {date2}.",
             "The late fee on invoice {ref2} was settled last month and is not repeated here."],
         FE=["Thank you for your prompt payment."]),
    dict(id="inv-paid-in-full", dom="finance_invoices", fmt="invoice", q="Has the invoice been paid in full?",
         avoid=["paid", "payment", "due", "balance", "settled", "outstanding", "status", "remind", "received", "thank you"],
         T=["Paid in full on {date2} by bank transfer. Balance due: 0.00.", "Status: PAID IN FULL ({date2})."],
         TB=["Settled by card on {date2}; nothing outstanding."],
         TD=["No reminder needed: payment received in full on {date2}."],
         FD=["Status: NOT PAID.", "Payment was promised for {date2} but has not been received."],
         FB=["Deposit of 30% received on {date}; the rest is still outstanding.", "Customer paid invoice {ref2}; this invoice remains open."],
         FE=["Payment due by {date2}."]),
    dict(id="inv-vat", dom="finance_invoices", fmt="invoice", q={"claim": "This invoice charges VAT.", "note": "Read the invoice lines and notes."},
         crit={"true": "VAT charged", "false": "No VAT charged"},
         avoid=["vat", "tax", "reverse", "exempt"],
         T=["VAT 20% | {vat}", "VAT at standard rate | {vat}"],
         TB=["Sales tax (value added) | {vat}"],
         TD=["No discount applied; VAT 20% | {vat}"],
         FD=["No VAT charged: reverse charge applies.", "VAT exempt (education services); no VAT added."],
         FB=["VAT will be charged from the next invoice, once registration is complete.",
             "The courier charged VAT on its own invoice; this invoice has no VAT."],
         FE=["Small business, not VAT-registered."]),
    dict(id="rcpt-refund", dom="finance_invoices", fmt="receipt", receipt=True, q="The receipt shows a refund.",
         avoid=["refund", "return", "credit", "exchange"],
         T=["REFUND: returned jacket | -{neg}", "Refund to card ending 4412 | -{neg}"],
         TB=["Returned item, money back to card | -{neg}"],
         TD=["No exchange made; customer refunded for the returned lamp | -{neg}"],
         FD=["Refund requested but not processed; no money returned today.", "No refunds on sale items."],
         FB=["Items can be refunded within 28 days with this receipt.", "Exchange only: returned scarf swapped for a larger size."],
         FE=["Paid by card ending 4412."]),
]

# difficulty of each bank when used
BANK_DIFF = {"T": "easy", "TB": "boundary", "TD": "decoy", "FD": "decoy", "FB": "boundary", "FE": "easy"}
# which banks to try for a wanted (truth, difficulty), in order of preference
BANK_ORDER = {
    (True, "easy"): ["T"], (True, "boundary"): ["TB", "T"], (True, "decoy"): ["TD", "TB", "T"],
    (False, "easy"): ["FE", "FB"], (False, "boundary"): ["FB", "FE"], (False, "decoy"): ["FD", "FB"],
}


def _ctx_ok(text: str, spec: dict) -> bool:
    low = text.lower()
    return not any(a in low for a in spec.get("avoid", []))


def compose(rng, spec: dict, truth: bool, diff: str):
    F = slots(rng)
    bank = next(b for b in BANK_ORDER[(truth, diff)] if spec.get(b))
    core = fill(rng.choice(spec[bank]), F)
    fmt = FMT[spec["fmt"]]
    ctx = [c for c in fmt["ctx"] if _ctx_ok(c, spec)]
    k = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5])
    parts = [fill(c, F) for c in rng.sample(ctx, min(k, len(ctx)))]
    parts.insert(rng.randint(0, len(parts)), core)
    if k == 0 and rng.random() < 0.5:
        state = core
    else:
        state = fmt["render"](rng, parts, F, spec)
    fillers = [p for p in fmt["filler"] if _ctx_ok(p, spec)]
    if fillers and isinstance(state, str) and len(parts) >= 2 and rng.random() < 0.3:
        for para in rng.sample(fillers, min(len(fillers), rng.choice([1, 1, 2]))):
            state = state + "\n\n" + fill(para, F)
    return state, BANK_DIFF[bank]


# --------------------------------------------------------------------------------------------
# RAG: passage + answer; is the answer supported by / in contradiction with the passage?
#   S supported, S2 supported in other words, C contradicts, X supported plus an unsupported
#   extra claim (never contradicting), U on-topic but unsupported (never contradicting)
# --------------------------------------------------------------------------------------------
def _other(rng, v, lo, hi):
    return rng.choice([x for x in range(lo, hi + 1) if x != v])


PASSAGES = [
    dict(text=("The {town} public library is open from {h1}:00 to 19:00 on weekdays and from 10:00 to 14:00 on Saturdays; it is closed on Sundays. "
               "Members can borrow up to {k} books at a time for three weeks. Printing costs {c} cents per page, and the reading room has {seats} seats."),
         slots=lambda rng: (lambda k, c: {"h1": rng.choice([8, 9, 10]), "k": k, "k2": _other(rng, k, 3, 20), "c": c, "c2": _other(rng, c, 5, 30),
                                          "seats": rng.randint(30, 90)})(rng.randint(4, 15), rng.randint(5, 25)),
         facts=[dict(q="How many books can members borrow at once?", S=["Up to {k} books at a time."], S2=["Members may have {k} books out at once, each for three weeks."],
                     C=["Up to {k2} books at a time."], X=["Up to {k}, and audiobooks don't count towards the limit."], U=["Members can also borrow e-readers for a month."]),
                dict(q="How much does printing cost?", S=["{c} cents per page."], S2=["Each printed page costs {c} cents."], C=["{c2} cents per page."],
                     X=["{c} cents per page; you pay at the front desk."], U=["You can pay for printing with your library card."]),
                dict(q="When is the library open on Saturdays?", S=["From 10:00 to 14:00."], S2=["Saturday hours are 10 a.m. to 2 p.m."], C=["From 10:00 to 18:00."],
                     X=["From 10:00 to 14:00, and the cafe opens at the same time."], U=["Saturday hours were introduced last year."])]),
    dict(text=("The {town} community pool is 25 metres long and heated to {t} degrees. Adult entry costs {p} pounds; children under {a} swim free. "
               "Lane swimming runs from 6:30 to 9:00 every weekday morning."),
         slots=lambda rng: (lambda t: {"t": t, "t2": _other(rng, t, 24, 32), "p": rng.randint(3, 8), "a": rng.choice([5, 6, 8, 10, 12])})(rng.randint(25, 31)),
         facts=[dict(q="How warm is the pool?", S=["It is heated to {t} degrees."], S2=["The water is kept at {t} degrees."], C=["It is heated to {t2} degrees."],
                     X=["{t} degrees, and the sauna next to it is 80 degrees."], U=["The water is treated with salt rather than chlorine."]),
                dict(q="Do children have to pay?", S=["Children under {a} swim free."], S2=["No charge for kids younger than {a}; adults pay {p} pounds."],
                     C=["Children under {a} pay half price."], X=["Children under {a} swim free, and they get a free swim cap."],
                     U=["Children must be accompanied by an adult."]),
                dict(q="When is lane swimming?", S=["Weekday mornings, 6:30 to 9:00."], S2=["From half past six until nine, Monday to Friday mornings."],
                     C=["Weekday evenings, 18:00 to 21:00."], X=["Weekday mornings from 6:30 to 9:00, in the two lanes nearest the windows."],
                     U=["Lanes have to be booked online."])]),
    dict(text=("Pellucid Tasks keeps deleted items in the bin for {d} days. The free plan allows {pj} projects; the Team plan costs {pr} dollars per user "
               "per month and removes the limit. Exports are available as CSV and PDF."),
         slots=lambda rng: (lambda d, pj: {"d": d, "d2": _other(rng, d, 7, 90), "pj": pj, "pj2": _other(rng, pj, 2, 12), "pr": rng.randint(4, 15)})(
             rng.choice([7, 14, 30, 45, 60, 90]), rng.randint(2, 10)),
         facts=[dict(q="How long are deleted items kept?", S=["{d} days, in the bin."], S2=["Anything you delete stays in the bin for {d} days."], C=["{d2} days."],
                     X=["{d} days; you can also empty the bin sooner yourself."], U=["Deleted items can be recovered from the mobile app."]),
                dict(q="How many projects does the free plan allow?", S=["{pj} projects."], S2=["Free users get up to {pj} projects; the Team plan has no limit."],
                     C=["{pj2} projects."], X=["{pj} projects, each with unlimited tasks."], U=["The free plan includes priority support."]),
                dict(q="Which export formats are available?", S=["CSV and PDF."], S2=["You can export to PDF or to CSV."], C=["Only JSON; CSV and PDF are not supported."],
                     X=["CSV and PDF; exports are emailed as a zip file."], U=["Exports include comments and attachments."])]),
    dict(text=("{town} Nature Reserve opens at {o}:00 and closes at sunset. Entry is free, but parking costs {pk} pounds a day. Dogs must be kept on a lead "
               "between March and July to protect nesting birds. The {tr} km lakeside trail is step-free."),
         slots=lambda rng: (lambda tr: {"o": rng.choice([6, 7, 8, 9]), "pk": rng.randint(2, 9), "tr": tr, "tr2": _other(rng, tr, 2, 15)})(rng.randint(3, 12)),
         facts=[dict(q="Does entry cost anything?", S=["No, entry is free; only parking is charged."], S2=["You can get in without paying; parking is {pk} pounds a day."],
                     C=["Yes, entry costs {pk} pounds."], X=["Entry is free, and donations go to the bird hide repairs."], U=["Annual passes are sold at the gate."]),
                dict(q="When must dogs be on a lead?", S=["Between March and July."], S2=["During the nesting season, from March to July."],
                     C=["Only in winter, from November to February."], X=["Between March and July; rangers hand out free leads at the gate."],
                     U=["Dog bins are provided at the car park."]),
                dict(q="How long is the lakeside trail?", S=["{tr} km."], S2=["It's a {tr}-kilometre, step-free loop by the lake."], C=["{tr2} km."],
                     X=["{tr} km, with benches every 500 metres."], U=["The trail usually floods in February."])]),
    dict(text=("The {town} Makers Fair takes place on {date} in the old tram depot. Tickets cost {pd} euros on the door or {po} euros online. "
               "There are {st} stalls and a children's workshop at 11:00."),
         slots=lambda rng: (lambda pd, st: {"date": f"{rng.choice(MONTH)} {rng.randint(1, 28)}", "pd": pd, "po": pd - rng.randint(2, 4), "st": st,
                                            "st2": _other(rng, st, 20, 120)})(rng.randint(8, 16), rng.randint(25, 110)),
         facts=[dict(q="How much are tickets online?", S=["{po} euros."], S2=["Buying online costs {po} euros instead of {pd} on the door."],
                     C=["{pd} euros, the same as on the door."], X=["{po} euros, and the tickets are sent by email."], U=["Online tickets can be refunded up to a week before."]),
                dict(q="When is the children's workshop?", S=["At 11:00."], S2=["It starts at eleven in the morning."], C=["At 15:00."],
                     X=["At 11:00; places must be booked in advance."], U=["The workshop is run by local art students."]),
                dict(q="How many stalls are there?", S=["{st} stalls."], S2=["There are {st} of them."], C=["{st2} stalls."],
                     X=["{st} stalls, most of them selling jewellery."], U=["Stallholders are chosen by a jury."])]),
    dict(text=("Orvel Bank's Everyday account has no monthly fee if at least {dep} pounds is paid in each month; otherwise the fee is {fee} pounds. "
               "Card payments abroad cost {fx}% of the amount. Overdrafts up to {od} pounds are interest-free."),
         slots=lambda rng: (lambda od: {"dep": rng.choice([500, 750, 800, 1000, 1200]), "fee": rng.randint(2, 9), "fx": rng.choice([1, 2, 3]),
                                        "od": od, "od2": od + rng.choice([-200, -100, 250, 500])})(rng.choice([250, 300, 500, 750, 1000])),
         facts=[dict(q="Is there a monthly fee?", S=["Only if less than {dep} pounds is paid in that month; then it is {fee} pounds."],
                     S2=["Pay in {dep} pounds or more a month and it's free; otherwise {fee} pounds."],
                     C=["Yes, {fee} pounds every month, however much you pay in."], X=["No fee if you pay in {dep} pounds a month; the fee is shown on your statement."],
                     U=["The fee is taken on the first working day of the month."]),
                dict(q="What do card payments abroad cost?", S=["{fx}% of the amount."], S2=["A charge of {fx} percent of each payment."],
                     C=["Nothing; card payments abroad are free."], X=["{fx}% of the amount, shown separately on your statement."],
                     U=["Cash withdrawals abroad are free."]),
                dict(q="How big is the interest-free overdraft?", S=["Up to {od} pounds."], S2=["You can go {od} pounds overdrawn without paying interest."],
                     C=["Up to {od2} pounds."], X=["Up to {od} pounds; you apply for it in the app."], U=["Overdraft requests are decided within a day."])]),
]

RAG_SPECS = [
    dict(id="rag-fully-supported", mode="support", q="Is the answer fully supported by the passage?", crit=None, form="obj"),
    dict(id="rag-claim-backed", mode="support", q={"claim": "Every statement in the answer is backed by the passage.",
                                                    "note": "Use only the passage, not outside knowledge."},
         crit={"true": "Supported", "false": "Not supported"}, form="objq"),
    dict(id="rag-correct-per-passage", mode="support", q="According to the passage, is the answer correct and complete?",
         crit={"true": "Yes", "false": "No"}, form="text"),
    dict(id="rag-contradicts", mode="contra", q="The answer contradicts the passage.", crit=None, form="mixed"),
]


def _rag_kind(rng, mode, truth, diff):
    """(answer kind, difficulty) for the wanted truth value."""
    if mode == "support":
        if truth:
            return ("S", "easy") if diff == "easy" else ("S2", "boundary")
        return {"easy": ("U", "easy"), "boundary": ("C", "boundary"), "decoy": ("X", "decoy")}[diff]
    if truth:
        return ("C", "easy") if diff == "easy" else ("C2", "boundary")
    return {"easy": ("S", "easy"), "boundary": ("U", "boundary"), "decoy": ("X", "decoy")}[diff]


def rag_gen(spec):
    def gen(rng, key, diff):
        truth = key == "yes"
        p = rng.choice(PASSAGES)
        F = p["slots"](rng)
        F["town"] = rng.choice(TOWN)
        passage = fill(p["text"], F)
        if rng.random() < 0.3:   # a second retrieved passage on another subject
            q = rng.choice([x for x in PASSAGES if x is not p])
            G = q["slots"](rng)
            G["town"] = rng.choice([t for t in TOWN if t != F["town"]])
            extra = fill(q["text"], G)
            passage = f"{passage}\n\n{extra}" if rng.random() < 0.5 else f"{extra}\n\n{passage}"
        fact = rng.choice(p["facts"])
        kind, d = _rag_kind(rng, spec["mode"], truth, diff)
        if kind == "C2":   # contradiction worded as a confident citation
            c = fill(rng.choice(fact["C"]), F)
            ans = rng.choice(["As the passage says, ", "According to the text, "]) + c[:1].lower() + c[1:]
        else:
            ans = fill(rng.choice(fact[kind]), F)
        form = spec["form"] if spec["form"] != "mixed" else rng.choice(["obj", "objq", "text"])
        if form == "obj":
            return {"question": fact["q"], "passage": passage, "answer": ans}, d
        if form == "objq":
            return {"passage": passage, "question": fact["q"], "answer": ans}, d
        return f"Passage: {passage}\n\nQuestion: {fact['q']}\nAnswer: {ans}", d
    return gen


# --------------------------------------------------------------------------------------------
# Families (one host per domain) and tasks
# --------------------------------------------------------------------------------------------
YN = [L("yes", ["yes"], ["yes"]), L("no", ["no"], ["no"])]


def doc_gen(spec):
    def gen(rng, key, diff):
        return compose(rng, spec, key == "yes", diff)
    return gen


def _tasks_for(dom):
    def make(rng, fam):
        out = []
        for spec in SPECS + RAG_SPECS:
            if spec.get("dom", "rag") != dom:
                continue
            t = Task(f"cd-{spec['id']}", fam, "noul", spec["q"], spec.get("crit"), lambda k: k == "yes", ["yes", "no"])
            t.custom_gen = rag_gen(spec) if "mode" in spec else doc_gen(spec)
            out.append(t)
        return out
    return make


def _host(dom):
    f = Family(id=f"cd-host-{dom}", domain=dom, labels=list(YN), choice_q=["-"], n_choice=0, items_per_task=24,
               extra_tasks=_tasks_for(dom))
    f.noul_per_label = 0
    return f


DOMAINS = []
for _s in SPECS:
    if _s["dom"] not in DOMAINS:
        DOMAINS.append(_s["dom"])
DOMAINS.append("rag")

FAMILIES = [_host(d) for d in DOMAINS]
