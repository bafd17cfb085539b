"""E-commerce reviews, sales leads, logistics tracking and scheduling families."""
import random
from common import Family, Label, Task, fill, person, CITY, FIRST, wrap_message

L = Label

ITEMS = ["blender", "backpack", "phone case", "desk lamp", "running shoes", "coffee grinder", "rain jacket", "yoga mat", "kettle",
         "bluetooth speaker", "office chair", "frying pan", "winter boots", "keyboard", "baby monitor", "air purifier", "suitcase", "watch"]
SENT = {
    "sneg": ["It broke after {n} days of normal use.", "Complete waste of money, I want a refund.", "Worst purchase I've made this year.",
             "The {item} stopped working on the first day.", "Cheap materials, it fell apart immediately.", "Totally useless, it does not do what it claims.",
             "Avoid this {item} at all costs."],
    "mneg": ["It's a bit flimsier than I expected.", "Not great: it's louder than described.", "The colour is duller than in the photos.",
             "Setup was more annoying than it should be.", "It does the job, but only just.", "A little overpriced for what you get."],
    "mpos": ["It does what it says.", "Pretty good for the price.", "Nice design and easy to use.", "Arrived quickly and works fine.",
             "Solid enough for everyday use.", "Comfortable, though nothing special."],
    "spos": ["Absolutely love this {item}, best purchase in ages!", "Outstanding quality, I've already ordered a second one.",
             "Exceeded every expectation, five stars without hesitation.", "Works flawlessly and looks beautiful.",
             "I'd recommend this {item} to anyone, it's perfect.", "Brilliant, my whole family uses it every day."],
}
SARCASM_NEG = ["Oh wonderful, the {item} broke the first time I used it. Truly top quality.", "Great, just great: arrived in pieces and support ignored me. Ten out of ten for disappointment.",
               "Amazing how a {item} can stop working in just two days. Impressive, really."]
POS_NEG_WORDS = ["I was worried it would be terrible and break, but no problems at all: it's excellent and I love it.",
                 "Not bad at all. Actually, not bad is an understatement, it's fantastic.",
                 "Never had a {item} this good. No complaints whatsoever."]


def gen_review(rng, key, diff):
    item = rng.choice(ITEMS)
    ex = {"item": item}
    lvl = int(key)
    d = "easy"
    def pick(k, _used=set()):
        pool = [x for x in SENT[k] if x not in picked] or SENT[k]
        x = rng.choice(pool)
        picked.add(x)
        return fill(rng, x, ex)
    picked = set()
    if lvl == 0:
        s = [pick("sneg"), pick("sneg")]
        if diff == "decoy":
            s = [fill(rng, rng.choice(SARCASM_NEG), ex)]
            d = "decoy"
    elif lvl == 1:
        s = [pick("mneg"), pick("mneg")] if diff == "easy" else [pick("mneg"), pick("mpos").rstrip(".") + ", but overall I'm disappointed."]
        d = "easy" if diff == "easy" else "boundary"
    elif lvl == 2:
        s = [pick("mpos"), pick("mneg")]
        d = "boundary" if diff != "easy" else "easy"
    elif lvl == 3:
        s = [pick("mpos"), pick("mpos")] if diff == "easy" else [pick("mpos"), "Only small gripe: " + (lambda m: m[0].lower() + m[1:])(pick("mneg"))]
        d = "easy" if diff == "easy" else "boundary"
    else:
        s = [pick("spos"), pick("spos")]
        if diff == "decoy":
            s = [fill(rng, rng.choice(POS_NEG_WORDS), ex)]
            d = "decoy"
    rng.shuffle(s)
    text = " ".join(s)
    r = rng.random()
    if r < 0.5:
        return text, d
    if r < 0.85:
        return {"product": item, "verified_purchase": rng.random() < 0.8, "review_title": rng.choice(["My review", "Thoughts", item.title(), "After two weeks"]),
                "review_text": text}, d
    return f"Review of {item}: {text}", d


REVIEW = Family(
    id="ecom-review", domain="ecommerce_reviews", ordered=True, gen=gen_review, n_score=6, n_choice=2, items_per_task=26,
    choice_q=["What star rating does this review most likely come with?", "Classify the review sentiment."],
    score_q=["How positive is this product review?", "Rate the customer's satisfaction from the review text.", "Sentiment of the review, from very negative to very positive",
             "Predict the star rating (1 to 5 stars) implied by the review."],
    threshold_q=[(3, "Is the reviewer happy with the product?"), (2, "Is the review at least neutral, i.e. not negative?"),
                 (1, "Is this review anything other than very negative?")],
    labels=[L("0", ["very negative"], ["Very negative (1 star)", "Furious or deeply disappointed", "1 star"]),
            L("1", ["negative"], ["Negative (2 stars)", "Disappointed, mostly complaints", "2 stars"]),
            L("2", ["mixed"], ["Mixed or neutral (3 stars)", "Balanced pros and cons", "3 stars"]),
            L("3", ["positive"], ["Positive (4 stars)", "Satisfied with minor reservations", "4 stars"]),
            L("4", ["very positive"], ["Very positive (5 stars)", "Delighted, enthusiastic", "5 stars"])],
)

ASPECT = Family(
    id="ecom-aspect", domain="ecommerce_reviews", n_choice=7, noul_per_label=1, items_per_task=24,
    wrap=lambda rng, t, k: t if rng.random() < 0.6 else {"rating": rng.randint(1, 5), "text": t, "order_id": f"#{rng.randint(10000, 99999)}"},
    choice_q=["What is the review mainly about?", "Which aspect of the purchase is the customer commenting on?", "Tag the main topic of the feedback.",
              "Main complaint or praise category"],
    labels=[
        L("product_quality", ["product quality", "quality"], ["How well the item is made or works", "Durability and performance of the product"],
          nq=["Is the review mainly about the quality of the product itself?"],
          easy=["The stitching on the backpack came apart after a week.", "Sturdy, heavy pan that heats evenly. Built to last.",
                "The speaker sounds tinny and distorts at half volume.", "Zip broke on the second use, poor materials."],
          decoy=[("delivery", "Delivery was fast, no complaints there. But the lamp itself flickers constantly and the switch is loose.")]),
        L("delivery", ["delivery", "shipping"], ["Speed and condition of delivery", "Shipping experience"],
          nq=["Is the feedback mainly about delivery or shipping?"],
          easy=["Took three weeks to arrive and the box was soaked.", "Arrived a day earlier than promised, great courier.",
                "Parcel was left in the rain outside the building.", "Tracking never updated, then it suddenly showed up a week late."],
          decoy=[("product_quality", "The kettle is great quality, I have no issue with it at all. The courier, however, threw the parcel over my fence.")]),
        L("customer_service", ["customer service", "support"], ["Interactions with support staff", "How the company handled questions or problems"],
          nq=["Is the review mainly about customer service?"],
          easy=["Support replied within an hour and sent a replacement without any hassle.", "I emailed four times about my problem and nobody answered.",
                "The agent on the phone was rude and hung up on me.", "Lovely staff in the chat, they sorted my issue quickly."],
          decoy=[("price", "Price was fine for me. What really stood out was how helpful the support team was when I had setup questions.")]),
        L("price", ["price", "value for money"], ["Whether the item is worth its cost", "Cost and value"],
          nq=["Is the review mainly about price or value for money?"],
          easy=["Way too expensive for such a basic item.", "Half the price of the big brands and just as good, bargain.",
                "Good, but I found it 30% cheaper elsewhere.", "Worth every penny."]),
        L("size_fit", ["size and fit", "sizing"], ["Whether clothing or shoes fit as expected", "Sizing accuracy"],
          nq=["Is the review mainly about size or fit?"],
          easy=["Runs small, I had to return it and order one size up.", "Fits perfectly, true to size.",
                "The sleeves are far too long even in size S.", "The boots are too narrow for normal feet."]),
    ])

def wrap_lead(rng, text, key=None):
    r = rng.random()
    if r < 0.4:
        return text
    if r < 0.8:
        return {"source": rng.choice(["contact_form", "email_reply", "webinar_chat", "linkedin"]), "contact": person(rng),
                "company_size": rng.choice(["1-10", "11-50", "51-200", "201-1000", "1000+"]), "message": text}
    return [{"role": "assistant", "content": "Hi! Thanks for your interest. How can we help?"}, {"role": "user", "content": text}]


LEAD = Family(
    id="sales-lead", domain="sales", ordered=True, wrap=wrap_lead, n_score=5, n_choice=2, items_per_task=24,
    choice_q=["What stage is this lead in?", "Qualify this inbound lead."],
    score_q=["How ready is this lead to buy?", "Rate the purchase intent in this message.", "Lead temperature", "Score the lead's buying intent."],
    threshold_q=[(2, "Should sales follow up with this lead this week?"), (3, "Is the prospect ready to sign or purchase now?"),
                 (1, "Does the contact show any interest in buying?")],
    context=["I work at {company}.", "Found you through a colleague.", "I lead the operations team."],
    labels=[
        L("0", ["not interested"], ["No interest or not a fit", "Unsubscribe / not a buyer", "Cold: no intent"],
          easy=["Please remove me from your mailing list.", "We're a two-person charity and have no budget for software.",
                "I'm a student researching CRM tools for a class paper, not buying anything.", "We just signed a three-year deal with another vendor."],
          decoy=[("3", "Your sales rep said we were 'ready to sign', but that's not right: we have no budget this year and won't be buying.")]),
        L("1", ["curious"], ["Early curiosity, gathering information", "Browsing, no timeline", "Information seeking"],
          easy=["Just browsing. Do you have a brochure I could look at?", "What does your product do exactly?", "Is there a free version I can play with someday?"],
          boundary=["We might look at tools like yours next year, can you send general info?"]),
        L("2", ["evaluating"], ["Actively evaluating, comparing options", "Has a need and a rough timeline", "Considering a purchase"],
          easy=["We're comparing three vendors this quarter. Could we get a demo next week?", "Can you share pricing for {nn} users and your security documentation?",
                "Our current contract ends in {month}; we're evaluating replacements."],
          boundary=["Interested in a trial for our team to see if it fits our workflow."]),
        L("3", ["ready to buy"], ["Ready to purchase: asks for contract, invoice or start date", "Decision made, wants to proceed", "Hot: closing"],
          easy=["We've approved the budget. Please send the contract for {nn} seats so we can start on the 1st.", "How do I pay for the annual plan today? We're ready to go.",
                "Legal has signed off, send the order form and we'll countersign this week."],
          decoy=[("0", "Not interested in another demo, we've seen enough. Just send the invoice for the Business plan, we're buying.")]),
    ])


# ------------------------------------------------------------------ logistics tracking
EVENTS = {
    "pre": ["Label created", "Picked up by carrier", "Arrived at sorting facility in {city}", "Departed facility in {city}", "In transit to destination hub"],
    "delivered": ["Delivered, left at front door", "Delivered to recipient, signed by {name}", "Delivered to parcel locker"],
    "in_transit": ["Arrived at destination hub in {city}", "In transit", "Out for delivery"],
    "delayed": ["Delay: weather conditions, new estimate +2 days", "Missed connection, shipment will be delayed", "Delayed at hub due to high volumes"],
    "damaged": ["Exception: package damaged in transit, contents under inspection", "Parcel damaged, held at depot for assessment"],
    "returned": ["Returned to sender: address unknown", "Refused by recipient, returning to sender", "Return to sender initiated after 3 failed attempts"],
    "customs": ["Held by customs: awaiting import duty payment", "Customs inspection in progress", "Customs hold: commercial invoice missing"],
}


def gen_track(rng, key, diff):
    n = rng.randint(1, 4)
    evs = [fill(rng, EVENTS["pre"][i]) for i in sorted(rng.sample(range(len(EVENTS["pre"])), n))]
    d = "easy"
    if diff == "decoy" and key in ("delivered", "in_transit"):
        evs.append(fill(rng, rng.choice(EVENTS["delayed"])))
        evs.append(rng.choice(["Delay cleared, shipment back on schedule", "Delay resolved, moving again"]))
        d = "decoy"
    evs.append(fill(rng, rng.choice(EVENTS[key])))
    hist = [{"seq": i + 1, "status": e} for i, e in enumerate(evs)]
    if rng.random() < 0.5:
        return {"tracking_number": f"1Z{rng.randint(10**9, 10**10 - 1)}", "carrier": rng.choice(["DHL", "UPS", "ParcelNet", "Royal Mail", "FedEx"]), "events": hist}, d
    return "Tracking history (oldest first):\n" + "\n".join(f"{i + 1}. {e}" for i, e in enumerate(evs)), d


TRACK = Family(
    id="logi-track", domain="logistics", gen=gen_track, n_choice=8, noul_per_label=1, items_per_task=24,
    choice_q=["What is the current status of this shipment?", "Summarise the latest shipment state.", "Where does this parcel stand now? Use the most recent event.",
              "Current shipment status (latest event wins)"],
    labels=[
        L("delivered", ["delivered"], ["The parcel has reached the recipient", "Delivery completed"], nq=["Has the parcel been delivered?"]),
        L("in_transit", ["in transit", "on its way"], ["Moving normally towards the recipient", "On the way, no problem"], nq=["Is the parcel still on its way without problems?"]),
        L("delayed", ["delayed", "running late"], ["Late, with a delay reported", "Delay in transit"], nq=["Is the shipment currently delayed?"]),
        L("damaged", ["damaged", "damage exception"], ["Reported damaged", "Damaged in transit"], nq=["Has the shipment been reported damaged?"]),
        L("returned", ["returned to sender", "return"], ["Going back to the sender", "Being returned"], nq=["Is the parcel being returned to the sender?"]),
        L("customs", ["customs hold", "held in customs"], ["Stuck at customs", "Awaiting customs clearance"], nq=["Is the shipment held at customs?"]),
    ])

SCHED = Family(
    id="sched-intent", domain="scheduling", wrap=wrap_message, n_choice=7, noul_per_label=1, items_per_task=24,
    choice_q=["What does the sender want to do with the appointment?", "Classify the scheduling request.", "Intent of this calendar message",
              "Which scheduling action is requested?"],
    labels=[
        L("book", ["book new", "new appointment", "schedule"], ["Set up a new meeting or appointment", "Create a booking"],
          nq=["Is the sender asking to book a new appointment?"],
          easy=["Could we set up a call next {day} afternoon to go through the proposal?", "I'd like to book a haircut for Saturday morning.",
                "Can I get an appointment with Dr {name} sometime next week?", "Let's schedule a 30-minute intro meeting with your team."],
          decoy=[("cancel", "We had to cancel our last project, but now we're starting a new one, so I'd like to book a kickoff meeting for {day}.")]),
        L("reschedule", ["reschedule", "move appointment"], ["Change the time of an existing booking", "Move a meeting to another slot"],
          nq=["Does the sender want to move an existing appointment?"],
          easy=["Something came up, can we move tomorrow's 10am to {day} at the same time?", "I need to push our meeting back by an hour.",
                "Could I change my dentist appointment from {date} to later that week?"],
          decoy=[("cancel", "Please don't cancel it, I still want the appointment, just on {day} instead of {date}.")]),
        L("cancel", ["cancel", "cancellation"], ["Call off a booking without a new time", "Cancel the appointment"],
          nq=["Does the sender want to cancel without rebooking?"],
          easy=["I won't be able to make it on {day}, please cancel my appointment. I'll get in touch if I need another.",
                "Please cancel the {date} meeting, the project has been dropped.", "Cancel my table for four tonight, sorry."],
          decoy=[("reschedule", "No need to find another time, I'm not rescheduling. Just cancel {day}'s session please.")]),
        L("confirm", ["confirm", "confirmation"], ["Confirms an already proposed time", "Accepts the booking"],
          nq=["Is the sender confirming an already proposed time?"],
          easy=["{day} at 3pm works for me, see you then.", "Confirming my appointment on {date} at 9:30.", "Yes, I'll be there. Thanks for the reminder."]),
        L("availability", ["ask availability", "availability question"], ["Asks when slots are free, without booking yet", "Availability enquiry"],
          nq=["Is the sender only asking about availability?"],
          easy=["What times do you have free next week? Just checking before I commit.", "Are you open on bank holidays?",
                "Do you have any evening slots in {month}?"]),
    ])

FAMILIES = [REVIEW, ASPECT, LEAD, TRACK, SCHED]
