"""Education grading, PII detection, topic classification, chatbot intent, meeting notes."""
import random
from common import Family, Label, Task, fill, person, CITY, FIRST, LAST, wrap_message

L = Label

# question, reference, [full, partial, wrong-but-related, off-topic/blank]
EDU = [
    ("Why do we have seasons on Earth?", "Because Earth's axis is tilted, so each hemisphere gets more direct sunlight for part of the year.",
     ["Earth's axis is tilted, so during part of the year our hemisphere leans toward the Sun and gets more direct light.",
      "Because of the tilt of the Earth.", "Because Earth gets closer to the Sun in summer and further away in winter.", "I don't know."]),
    ("What does a plant need for photosynthesis?", "Light, water and carbon dioxide (chlorophyll captures the light).",
     ["Sunlight, water and carbon dioxide, with chlorophyll absorbing the light.", "Sunlight and water.", "Oxygen and soil.", "Plants are green."]),
    ("What is 3/4 as a percentage?", "75%", ["75 percent", "It's about 70-something percent.", "34%", "Fractions are hard."]),
    ("Name the three states of matter and give an example of each.", "Solid (ice), liquid (water), gas (steam).",
     ["Solid like ice, liquid like water and gas like steam.", "Solid, liquid and gas.", "Hot, cold and warm.", "Water."]),
    ("Why did the Roman Empire build roads?", "To move armies quickly, and to support trade and communication across the empire.",
     ["So their armies could move fast, and for trade and sending messages across the empire.", "For the army.", "To make the cities look nice for tourists.", "Rome is in Italy."]),
    ("What is the function of the heart?", "It pumps blood around the body, delivering oxygen and nutrients.",
     ["It pumps blood through the body so oxygen and nutrients reach the organs.", "It pumps blood.", "It helps us breathe air into the lungs.", "The heart is a muscle shape."]),
    ("Explain what a variable is in programming.", "A named storage location that holds a value which can change while the program runs.",
     ["A name that refers to a stored value, and the value can be changed while the program runs.", "Something that stores data.", "A type of loop that repeats code.", "Programming is fun."]),
    ("Why does ice float on water?", "Ice is less dense than liquid water because its molecules form an open crystal structure.",
     ["Because ice is less dense than liquid water, its molecules are arranged in an open lattice.", "It is lighter.", "Because ice is colder than water.", "Ice melts."]),
    ("What is the main cause of tides?", "The Moon's gravity pulling on Earth's oceans (with a smaller effect from the Sun).",
     ["The gravitational pull of the Moon, and a bit from the Sun, on the oceans.", "The Moon.", "Wind blowing across the sea.", "The ocean is big."]),
    ("Give one advantage and one disadvantage of renewable energy.", "Advantage: low emissions / won't run out. Disadvantage: intermittent supply or high upfront cost.",
     ["It doesn't run out and has low emissions, but wind and sun are not always available.", "It is clean.", "It is cheap and always available.", "Energy is important."]),
]


def gen_edu(rng, key, diff):
    q, ref, ans = rng.choice(EDU)
    lvl = int(key)
    a = ans[{3: 0, 2: 1, 1: 2, 0: 3}[lvl]]
    d = "easy"
    if lvl == 3 and diff == "decoy":
        a = a.lower().replace(",", "").replace(".", "") + " (sorry for the bad spelling and no punctuation)"
        d = "decoy"
    elif lvl == 1 and diff == "decoy":
        a = "I am confident about this, full marks please: " + a
        d = "decoy"
    elif lvl == 2:
        d = "boundary" if diff != "easy" else "easy"
    r = rng.random()
    if r < 0.6:
        return {"question": q, "reference_answer": ref, "student_answer": a}, d
    return f"Question: {q}\nMark scheme: {ref}\nStudent wrote: {a}", d


EDUF = Family(
    id="edu-grade", domain="education", ordered=True, gen=gen_edu, n_score=5, n_choice=2, items_per_task=24,
    choice_q=["Grade the student's answer.", "How correct is the student answer compared with the reference?"],
    score_q=["Score the student answer against the reference answer.", "How many marks does the student answer deserve?", "Grade correctness and completeness (ignore spelling).",
             "Rate the answer's correctness."],
    threshold_q=[(2, "Does the student answer get at least half marks?"), (3, "Is the student answer fully correct and complete?"), (1, "Does the answer contain anything correct?")],
    labels=[L("0", ["no credit"], ["No relevant answer / blank", "0 marks: nothing relevant", "Irrelevant or empty"]),
            L("1", ["incorrect"], ["Attempted but wrong", "Wrong idea or misconception", "Incorrect answer"]),
            L("2", ["partial"], ["Partly correct, incomplete", "Right idea but missing key parts", "Partial credit"]),
            L("3", ["full"], ["Fully correct and complete", "Matches the reference", "Full marks"])],
)


# ------------------------------------------------------------------ PII detection
PII_KIND = {
    "email": lambda rng: f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}@{rng.choice(['gmail.example', 'outlook.example', 'mail.example'])}",
    "phone": lambda rng: rng.choice([f"+1 415 555 {rng.randint(1000, 9999)}", f"07700 900{rng.randint(100, 999)}", f"(212) 555-{rng.randint(1000, 9999)}"]),
    "card": lambda rng: f"4{rng.randint(100, 999)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
    "address": lambda rng: f"{rng.randint(2, 180)} {rng.choice(['Oak Street', 'Harbour Road', 'Mill Lane', 'Station Avenue'])}, {rng.choice(CITY)}",
}
PII_TPL = {
    "email": ["You can reach me at {x} if the form doesn't work.", "Send the invoice to {x}, that's my personal address.", "My login is {x}, I can't get in."],
    "phone": ["Call me on {x} after 5pm.", "My mobile is {x}, text me when the courier arrives.", "The best number for me is {x}."],
    "card": ["I paid with card {x}, can you check the charge?", "Here is my card number so you can retry: {x}.", "Use {x} for the renewal."],
    "address": ["Please ship it to {x} instead.", "I live at {x}, the package never came.", "My new address is {x}."],
}
NO_PII = ["My order number is {order} and it hasn't arrived.", "Call me back whenever, I'm free all afternoon.", "I'd like to update my email preferences to weekly.",
          "The card reader at the store didn't work on {day}.", "We moved offices last month; please update our details via the portal.",
          "Ticket {order}: the app crashes on launch.", "The phone app keeps logging me out."]
NO_PII_DECOY = ["Version {ver} of the app, build 4417 2210 9981, crashes on start.", "I won't share my phone number here for privacy reasons, please use the in-app chat.",
                "Reference code 555-{n}{n}{n}{n} appears on the error screen.", "Don't send anything to my old email, I'll update it myself in settings."]


def pii_tasks(rng, fam):
    out = []
    specs = [("Does the message contain any personal contact or payment information (email, phone number, card number, home address)?", None, None),
             ("Does the text include an email address?", None, "email"), ("Does the text include a phone number?", None, "phone"),
             ("Does the text contain a payment card number?", {"true": "A full card number appears", "false": "No card number"}, "card"),
             ("Does the message reveal a postal address?", None, "address"),
             ({"question": "Must this message be redacted before it is stored in the analytics warehouse?", "rule": "Redact anything containing an email, phone, card number or street address."}, None, None)]
    for i, (q, c, kind) in enumerate(specs):
        def gen(rng, key, diff, kind=kind):
            d = "easy"
            if key == "yes":
                k = kind or rng.choice(list(PII_KIND))
                text = rng.choice(PII_TPL[k]).replace("{x}", PII_KIND[k](rng))
                if diff != "easy" and kind is None:
                    d = "boundary"
            else:
                if kind and rng.random() < 0.5:
                    # other PII kind present, but not the asked one
                    k = rng.choice([x for x in PII_KIND if x != kind])
                    text = rng.choice(PII_TPL[k]).replace("{x}", PII_KIND[k](rng))
                    d = "decoy" if diff == "decoy" else "boundary"
                elif diff == "decoy":
                    text = fill(rng, rng.choice(NO_PII_DECOY))
                    d = "decoy"
                else:
                    text = fill(rng, rng.choice(NO_PII))
            pre = fill(rng, rng.choice(["", "Hi, ", "Hello support. ", "Quick question. ", "Re ticket {order}: "]))
            return pre + text, d
        t = Task(f"pii-{i}", fam, "noul", q, c, lambda k: k == "yes", ["yes", "no"])
        t.custom_gen = gen
        out.append(t)
    return out


PII = Family(id="pii", domain="privacy", labels=[L("yes", ["y"], ["y"]), L("no", ["n"], ["n"])], choice_q=["-"], n_choice=0,
             items_per_task=24, extra_tasks=pii_tasks)
PII.noul_per_label = 0


TOPIC = Family(
    id="news-topic", domain="content_classification", n_choice=8, noul_per_label=1, items_per_task=24,
    wrap=lambda rng, t, k: t if rng.random() < 0.6 else {"headline_and_lede": t, "source": rng.choice(["wire", "blog", "newsletter"])},
    choice_q=["What is the topic of this article?", "Classify the news snippet by section.", "Which section of the site should this story go in?",
              "Main subject of the text"],
    labels=[
        L("sports", ["sports"], ["Games, athletes, matches and tournaments", "Sport news"], nq=["Is this a sports story?"],
          easy=["{city} United came from two goals down to win 3-2 in stoppage time on {day}.", "The marathon champion withdrew from next month's race with a hamstring injury.",
                "The national cricket team named three new players for the winter tour.", "The tennis final went to five sets before the defending champion finally won."],
          decoy=[("business", "The club reported record revenue, but the story is about the match: their striker scored a hat-trick in the derby.")]),
        L("politics", ["politics"], ["Government, elections and policy", "Political news"], nq=["Is this a politics story?"],
          easy=["The prime minister announced a cabinet reshuffle after the coalition partner withdrew.", "Voters in {city} go to the polls on {day} in a closely fought mayoral race.",
                "Parliament passed the housing bill by a narrow margin after a heated debate.", "The opposition leader called for an inquiry into campaign funding."]),
        L("business", ["business", "economy"], ["Companies, markets and the economy", "Business and finance news"], nq=["Is this a business or economy story?"],
          easy=["{company} shares rose 8% after the company beat quarterly earnings forecasts.", "Inflation slowed to 2.4% in {month}, the lowest in three years.",
                "The retailer will close {nn} stores and cut 1,200 jobs.", "Two logistics firms agreed a merger worth 3 billion dollars."],
          decoy=[("technology", "The app maker's technology was not discussed; the news is that its shares fell 20% after revenue missed forecasts.")]),
        L("technology", ["technology", "tech"], ["Gadgets, software, internet and AI", "Tech news"], nq=["Is this a technology story?"],
          easy=["A new smartphone chip promises twice the battery life of last year's model.", "The open-source browser released an update that blocks third-party trackers by default.",
                "Researchers demonstrated a robot that can fold laundry from a single video example.", "A major cloud outage took down thousands of websites for two hours."]),
        L("health", ["health"], ["Medicine, disease and wellbeing", "Health news"], nq=["Is this a health story?"],
          easy=["A large study found that a daily 20-minute walk lowers the risk of heart disease.", "Flu cases doubled in the last week, hospitals in {city} report.",
                "A new vaccine for a childhood illness was approved after successful trials.", "Doctors warn that poor sleep is linked to higher blood pressure."],
          decoy=[("sports", "The footballer's transfer was not the news: the story is a study showing that repeated heading of the ball is linked to memory loss.")]),
        L("entertainment", ["entertainment", "culture"], ["Films, music, celebrities and TV", "Arts and entertainment"], nq=["Is this an entertainment story?"],
          easy=["The indie film swept the festival awards, winning best picture and best actress.", "The band announced a reunion tour with dates in {n} cities.",
                "The hit TV series will end after its sixth season, the network confirmed.", "The singer's new album topped the charts in its first week."]),
    ])


INTENT = Family(
    id="bot-intent", domain="chatbot_routing", wrap=wrap_message, n_choice=8, noul_per_label=1, items_per_task=24,
    choice_q=["What does the user want?", "Detect the user's intent.", "Which intent should the chatbot trigger?", "Route the chat message to an intent handler."],
    labels=[
        L("order_status", ["order status", "track order"], ["Where is my order / delivery status", "Tracking an order"], nq=["Does the user want to know where their order is?"],
          easy=["Where's my package? It's been a week.", "Has order {order} shipped yet?", "When will my stuff arrive?", "Can I get the tracking link for my order?"]),
        L("return", ["return or exchange", "returns"], ["Send an item back or exchange it", "Return request"], nq=["Does the user want to return or exchange an item?"],
          easy=["The shoes are too small, how do I send them back?", "I want to exchange the blue jacket for a black one.", "Can I return an opened item?",
                "I need a return label for order {order}."],
          decoy=[("order_status", "Yes it arrived, tracking says delivered and that's correct. Now I'd like to send it back because it's the wrong colour.")]),
        L("product_question", ["product question", "product info"], ["Question about a product's features or specs before or after buying", "Product information"],
          nq=["Is the user asking about a product's features or specifications?"],
          easy=["Is this jacket waterproof?", "Does the blender come with a travel cup?", "What's the battery life of the X2 headphones?",
                "Is the desk easy to assemble alone?"]),
        L("complaint", ["complaint", "file a complaint"], ["Expresses dissatisfaction and wants it recorded or addressed", "Formal complaint"],
          nq=["Is the user making a complaint?"],
          easy=["I want to make a formal complaint about the driver who was rude to me.", "Your store staff ignored me for 20 minutes, this is unacceptable.",
                "I'm very unhappy with how my last three orders were handled."]),
        L("human", ["talk to a human", "agent request"], ["Wants a human agent instead of the bot", "Escalate to a person"], nq=["Is the user asking to speak to a human?"],
          easy=["Can I talk to a real person please?", "Agent.", "Stop, I want a human, not a bot.", "Transfer me to someone from your team."],
          decoy=[("complaint", "I'm not complaining, the bot is fine, but this is complicated so I'd rather speak to an actual person.")]),
    ])


def gen_meeting(rng, key, diff):
    n1, n2 = rng.sample(FIRST, 2)
    base = [f"Attendees: {n1}, {n2}, {rng.choice(FIRST)}.", f"Discussed the {rng.choice(['Q3 budget', 'website redesign', 'hiring plan', 'office move', 'vendor contract'])}.",
            rng.choice(["General agreement that the current approach works.", "Some concerns about timing were raised.", "Numbers look better than last month."])]
    d = "easy"
    if key == "yes":
        base.append(rng.choice([f"{n1} will send the revised draft to the team by {rng.choice(['Friday', 'next Monday', 'end of day'])}.",
                                f"Action: {n2} to book the venue before {rng.choice(['the 15th', 'Thursday', 'month-end'])}.",
                                f"{n1} owns the follow-up with legal; due next week."]))
    else:
        if diff == "decoy":
            base.append(rng.choice([f"{n1} mentioned last week's deadline was met. No new tasks were assigned.",
                                    "Someone asked whether there will be action items; we agreed none are needed for now."]))
            d = "decoy"
        else:
            base.append(rng.choice(["Next meeting in two weeks.", "Meeting ended early.", "No further business."]))
    return "\n".join(base), d


def meet_tasks(rng, fam):
    out = []
    for i, (q, c) in enumerate([("Do these meeting notes assign a task to a specific person with a deadline?", None),
                                ("Are there any action items with an owner and a due date?", {"true": "At least one owned, dated action", "false": "No assigned actions"})]):
        t = Task(f"meet-action{i}", fam, "noul", q, c, lambda k: k == "yes", ["yes", "no"])
        t.custom_gen = gen_meeting
        out.append(t)
    return out


MEET = Family(id="meet", domain="productivity", labels=[L("yes", ["y"], ["y"]), L("no", ["n"], ["n"])], choice_q=["-"], n_choice=0,
              items_per_task=24, extra_tasks=meet_tasks)
MEET.noul_per_label = 0

FAMILIES = [EDUF, PII, TOPIC, INTENT, MEET]
