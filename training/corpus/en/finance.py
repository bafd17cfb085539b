"""Invoices, expenses and finance document families."""
import random
from common import Family, Label, Task, fill, person, COMPANY, CITY, hash_int

L = Label

EXP = {
    "travel": (["Delta Air", "Eurorail", "City Cabs", "Hilton Garden", "Uber", "Budget Car Rental", "Airport Parking Ltd"],
               ["return flight to {city} for the client workshop", "two nights hotel in {city} during the conference", "taxi from the airport to the client office",
                "train ticket to {city} for the site visit", "rental car for the three-day roadshow", "airport parking while travelling to {city}"]),
    "meals": (["Luigi's Trattoria", "Cafe Nero", "Sushi Zen", "The Green Fork", "Pret", "Harbour Grill"],
              ["team lunch with {n} engineers after the release", "dinner with the client from {company}", "coffee and pastries for the morning workshop",
               "working lunch during the budget review", "sandwiches for the offsite meeting"]),
    "software": (["Atlassian", "Adobe", "GitHub", "Figma", "Zoom", "JetBrains", "Notion"],
                 ["annual licence for the design tool", "monthly subscription for video conferencing", "IDE licences for {n} developers",
                  "project tracking seats for the team", "code hosting plan upgrade"]),
    "office_supplies": (["Staples", "Office Depot", "Viking Direct", "Paperchase"],
                        ["printer paper and toner", "notebooks, pens and sticky notes for the team", "whiteboard markers and folders",
                         "envelopes and postage labels"]),
    "equipment": (["Dell", "Apple Store", "Currys", "B&H Photo", "Logitech"],
                  ["laptop for the new hire", "27-inch monitor for the home office", "noise-cancelling headset for support calls",
                   "docking station and keyboard", "conference room camera"]),
    "training": (["Coursera", "O'Reilly", "Udemy", "PMI", "AWS Training"],
                 ["online course on data engineering", "registration fee for the project management certification", "workshop on negotiation skills",
                  "exam voucher for the cloud certification", "conference ticket for the developer summit"]),
}
EXP_DESC = {
    "travel": ["Flights, trains, hotels, taxis, car rental, parking", "Getting to and staying somewhere for work"],
    "meals": ["Food and drinks, including client and team meals", "Restaurants, catering, coffee"],
    "software": ["Software licences and SaaS subscriptions", "Apps and online tools"],
    "office_supplies": ["Consumables such as paper, pens, toner", "Small stationery items"],
    "equipment": ["Hardware and devices", "Computers, screens and electronics"],
    "training": ["Courses, certifications, conferences for learning", "Professional development"],
}
EXP_NAMES = {"travel": ["travel", "transport and lodging"], "meals": ["meals", "food and entertainment"],
             "software": ["software", "subscriptions"], "office_supplies": ["office supplies", "stationery"],
             "equipment": ["equipment", "hardware"], "training": ["training", "learning and development"]}
EXP_DECOY = {
    "travel": "Paid at the airport restaurant? No: this line is the airport parking fee only.",
    "meals": "Booked through the travel portal, but it is only the dinner at the hotel restaurant with the client, not the room.",
    "software": "Bought at an electronics store, but it's a digital download licence key for the accounting software, no hardware.",
    "equipment": "Listed under our software vendor, but this is the physical webcam and mount they sell, shipped to the office.",
    "training": "Includes lunch, but the charge is the course registration fee for the certification workshop.",
    "office_supplies": "From the computer store, but only printer paper and toner cartridges, no devices.",
}


def gen_expense(rng, key, diff):
    merchants, descs = EXP[key]
    m = rng.choice(merchants)
    desc = fill(rng, rng.choice(descs))
    d = "easy"
    if diff == "decoy":
        desc = fill(rng, EXP_DECOY[key])
        d = "decoy"
    elif diff == "boundary":
        # merchant withheld: only the description identifies the category
        m = rng.choice(["Card payment", "Online purchase", "Misc vendor", "POS terminal 4471"])
        d = "boundary"
    amt = f"{rng.randint(8, 1900)}.{rng.randint(0, 99):02d}"
    if rng.random() < 0.55:
        return {"employee": person(rng), "merchant": m, "description": desc, "amount": amt,
                "currency": rng.choice(["USD", "EUR", "GBP"]), "date": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"}, d
    return f"Expense claim by {person(rng)}: {m}, {desc.rstrip('.')}. Amount {amt}.", d


EXPENSE = Family(
    id="fin-expcat", domain="finance_expenses", gen=gen_expense, n_choice=8, noul_per_label=1, items_per_task=24,
    choice_q=["Which expense category does this claim belong to?", "Categorise the expense.", "Assign the accounting category for this line.",
              "What type of spend is this?"],
    labels=[L(k, EXP_NAMES[k], EXP_DESC[k], nq=[q]) for k, q in [
        ("travel", "Is this a travel expense?"), ("meals", "Is this a meals or entertainment expense?"),
        ("software", "Is this a software or subscription expense?"), ("office_supplies", "Is this an office supplies purchase?"),
        ("equipment", "Is this expense for hardware or equipment?"), ("training", "Is this a training or education expense?")]],
)


# ---------------------------------------------------------------- expense policy (rule in instructions)
def policy_tasks(rng, fam):
    tasks = []
    for i in range(14):
        r = random.Random(hash_int(f"pol{i}"))
        meal = r.choice([40, 50, 60, 75, 90])
        hotel = r.choice([150, 180, 220, 250])
        receipt = r.choice([25, 50, 75])
        kind = i % 3
        if kind == 0:
            instr = {"policy": {"meal_limit_per_person": meal, "hotel_limit_per_night": hotel, "receipt_required_over": receipt},
                     "question": "Does this expense claim comply with `policy`?"}
        elif kind == 1:
            instr = (f"Is this claim within policy? Meals may not exceed ${meal} per person, hotels ${hotel} per night, "
                     f"and any item over ${receipt} needs a receipt.")
        else:
            instr = {"rules": [f"Meals: max {meal} USD per attendee", f"Lodging: max {hotel} USD per night", f"Receipt mandatory above {receipt} USD"],
                     "question": "Is the claim compliant with all `rules`?"}
        crit = [None, {"true": "Compliant with every rule", "false": "Breaks at least one rule"}, {"true": "Within policy"}][i % 3]

        def gen(rng, key, diff, meal=meal, hotel=hotel, receipt=receipt):
            comply = key == "yes"
            typ = rng.choice(["meal", "hotel"])
            d = "easy"
            if typ == "meal":
                att = rng.randint(1, 6)
                per = meal * (rng.uniform(0.4, 0.85) if comply else rng.uniform(1.25, 2.2))
                if diff == "boundary":
                    per = meal * (rng.uniform(0.93, 0.99) if comply else rng.uniform(1.03, 1.09))
                    d = "boundary"
                total = round(per * att, 2)
                claim = {"type": "meal", "attendees": att, "total_usd": total, "per_person_usd": round(per, 2)}
            else:
                nights = rng.randint(1, 4)
                per = hotel * (rng.uniform(0.5, 0.9) if comply else rng.uniform(1.2, 1.8))
                if diff == "boundary":
                    per = hotel * (rng.uniform(0.94, 0.99) if comply else rng.uniform(1.03, 1.1))
                    d = "boundary"
                claim = {"type": "hotel", "nights": nights, "rate_per_night_usd": round(per, 2), "total_usd": round(per * nights, 2)}
            claim["receipt_attached"] = True
            if not comply and rng.random() < 0.3 and claim["total_usd"] > receipt:
                # violation via missing receipt instead (amount fine)
                if typ == "meal":
                    per = meal * rng.uniform(0.5, 0.8)
                    claim["per_person_usd"] = round(per, 2)
                    claim["total_usd"] = round(per * claim["attendees"], 2)
                else:
                    per = hotel * rng.uniform(0.5, 0.8)
                    claim["rate_per_night_usd"] = round(per, 2)
                    claim["total_usd"] = round(per * claim["nights"], 2)
                if claim["total_usd"] > receipt:
                    claim["receipt_attached"] = False
                    d = "boundary"
                else:
                    return None
            if comply and diff == "decoy":
                claim["note"] = ("Expensive-looking restaurant, but within the limit." if typ == "meal" else "Luxury hotel brand, discounted corporate rate.")
                d = "decoy"
            claim["employee"] = person(rng)
            return claim, d

        def answer(k):
            return k == "yes"
        tasks.append(Task(f"fin-policy{i}", fam, "noul", instr, crit, answer, ["yes", "no"]))
        tasks[-1].custom_gen = gen
    return tasks


# ---------------------------------------------------------------- finance document type
DOC = Family(
    id="fin-doctype", domain="finance_invoices", n_choice=7, noul_per_label=1, items_per_task=22,
    choice_q=["What kind of financial document is this?", "Classify the document.", "Which document type is this?",
              "Identify the document type for the AP inbox."],
    wrap=lambda rng, t, k: t,
    context=["Supplier: {company}.", "Prepared in {city}.", "Reference {order}."],
    labels=[
        L("invoice", ["invoice", "bill"], ["A request for payment for goods or services delivered", "Bill from a supplier with amount due"],
          nq=["Is this document an invoice requesting payment?"],
          easy=["INVOICE No. INV-{nn}{n}4. Bill to: {company}. 20 hours consulting at $95/h. Total due: {amount}. Payment due within 30 days.",
                "Invoice for services rendered in {month}: website maintenance, {amount}. Please pay by bank transfer by {date}.",
                "Tax invoice. Item: {n} x office chairs. Subtotal, VAT 20%, amount payable {amount}. Due date {date}."],
          boundary=["Statement of work completed in {month}, {amount} owed, please remit to the account below.",],
          decoy=[("quote", "Thank you for accepting our quote last month. This is the invoice for that work: amount due {amount}, payable by {date}.")]),
        L("receipt", ["receipt", "payment receipt"], ["Confirms a payment that has already been made", "Proof of purchase, nothing owed"],
          nq=["Is this a receipt for a payment already made?"],
          easy=["RECEIPT. Paid by card ending 4417 on {date}. Amount paid: {amount}. Balance: 0.00. Thank you for your purchase!",
                "Payment received with thanks: {amount} for order {order}. This receipt confirms your transaction is complete.",
                "Cash sale receipt #{nn}{n}. 2 x coffee, 1 x muffin. Total paid {amount}."],
          decoy=[("invoice", "Re: invoice INV-{nn}77. We confirm that we received your payment of {amount} in full on {date}. Nothing further is due.")]),
        L("quote", ["quote", "estimate", "quotation"], ["A price offer before any purchase is agreed", "Proposed prices, not yet a bill"],
          nq=["Is this a quote or estimate rather than a bill?"],
          easy=["QUOTATION Q-{nn}{n}. Proposed price for installing {n} access points: {amount}. Valid for 30 days. No payment is due until you accept.",
                "Estimate for the kitchen renovation: labour and materials approximately {amount}. Let us know if you'd like to proceed.",
                "Here is our offer for the annual support contract: {amount} per year. This quote expires on {date}."],
          decoy=[("invoice", "This is not an invoice. It is our estimate for the repair work, {amount}, to be invoiced only after you approve.")]),
        L("credit_note", ["credit note", "credit memo"], ["Reduces or cancels an earlier invoice", "Amount credited back to the customer"],
          nq=["Is this a credit note reducing an earlier invoice?"],
          easy=["CREDIT NOTE CN-{nn}{n}. Refers to invoice INV-{nn}20. Credit for returned goods: -{amount}. This amount will be deducted from your next bill.",
                "Credit memo issued for the overbilled hours in {month}: {amount} credited to your account."],
          decoy=[("invoice", "Following your complaint about invoice INV-{nn}31, we issue this credit of {amount} against it; you owe nothing extra.")]),
        L("payment_reminder", ["payment reminder", "overdue notice", "dunning letter"], ["Reminds that an invoice is unpaid or overdue", "Chasing an overdue payment"],
          nq=["Is this a reminder about an overdue payment?"],
          easy=["Friendly reminder: invoice INV-{nn}{n}2 for {amount} was due on {date} and remains unpaid. Please settle it at your earliest convenience.",
                "SECOND NOTICE. Our records show an outstanding balance of {amount}, now {nn} days overdue. Late fees may apply.",
                "We haven't yet received payment for order {order}. Could you check with your accounts team?"]),
        L("purchase_order", ["purchase order", "PO"], ["Buyer's order authorising a purchase", "Order document issued by the buyer"],
          nq=["Is this a purchase order issued by a buyer?"],
          easy=["PURCHASE ORDER PO-{nn}{n}8. Vendor: {company}. Please supply {n} pallets of printer paper at the agreed price. Deliver to our {city} warehouse by {date}.",
                "We hereby order 40 licences of the analytics tool per your price list. PO number PO-{nn}55, approved by procurement."]),
    ])

FAMILIES = [EXPENSE, DOC]
POLICY_HOST = Family(id="fin-policy", domain="finance_expenses", labels=[L("yes", ["yes"], ["y"]), L("no", ["no"], ["n"])],
                     choice_q=["-"], n_choice=0, items_per_task=24, extra_tasks=policy_tasks)
POLICY_HOST.noul_per_label = 0
FAMILIES.append(POLICY_HOST)
