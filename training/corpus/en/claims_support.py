"""Statement-verification noul tasks over customer-support / e-commerce states.

Each task asks whether one fixed statement holds for the state ("The customer has already tried
restarting the device.", "Did the agent promise a refund?", ...).  The state is composed from parts:

    topic opener (on-topic, neutral for the statement)  +  key fragment  +  label-neutral filler

and rendered as a plain email, a support transcript, a JSON ticket or a list of {role, content}
turns.  The key fragment decides the truth value:

    T   asserts the fact in varied wordings                                   -> true,  easy
    TH  asserts the fact behind a misleading surface cue (negation, contrast)  -> true,  decoy/boundary
    D   explicit negation / contrast ("I haven't restarted it yet")            -> false, decoy
    B   different value / actor / time (planned vs done, agent vs customer)    -> false, boundary
    E   same topic, the fact does not come up and is naturally false          -> false, easy

Fragments are written as speaker-tagged turns separated by " | ":  "C: ..." customer, "A: ..."
agent, "S: ..." system/record note.  Fillers never touch any statement asked in this module.
"""
from __future__ import annotations

import random
import re
from collections import Counter

from common import Family, Label, Task, FIRST, LAST, CITY, WEEKDAY, MONTH

# --------------------------------------------------------------------------------------------
# Entities and context slots
# --------------------------------------------------------------------------------------------
ITEMS = ["desk lamp", "pair of running shoes", "wool blanket", "blender", "backpack", "phone case", "mug set",
         "yoga mat", "rain jacket", "kettle", "bookshelf", "pair of headphones", "coffee grinder", "duvet cover",
         "camping stove", "bike helmet", "table fan", "set of knives", "office chair", "travel pillow"]
DEVICES = ["router", "robot vacuum", "smart speaker", "e-reader", "video doorbell", "fitness tracker", "printer",
           "thermostat", "tablet", "security camera", "smart plug", "baby monitor", "soundbar", "smartwatch"]
COMPETITORS = ["Parcelly", "Brightcart", "ZoomMart", "Helio Mobile", "Streamwise", "NovaNet", "Kindred Goods",
               "Ridgeway Telecom", "Larkspur", "Tidemark"]
STREETS = ["Elm Street", "Harbour Road", "Mill Lane", "Station Avenue", "Orchard Way", "King's Row", "Bridge Street"]
CODES = ["SPRING20", "WELCOME10", "SAVE15", "HELLO5", "AUTUMN25", "THANKYOU", "FRESH12", "VIP30"]
SHOPS = ["Bluepeak Retail", "Harbor & Finch", "Quillstone", "Brightloop", "Fernway Home", "Ironbark Tools",
         "Marlow & Pike", "Oakhollow", "Penmark Electronics", "Sunfield Goods", "Copperleaf", "Wrenbury Direct"]
PLANS = ["Basic", "Starter", "Plus", "Pro", "Business", "Enterprise"]


def make_ctx(rng: random.Random) -> dict:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    agent = rng.choice([f for f in FIRST if f != first])
    i1, i2 = rng.sample(range(len(ITEMS)), 2)
    d1, d2 = rng.sample(WEEKDAY, 2)
    mon = rng.choice(MONTH)
    a = rng.randint(3, 20)
    b = a + rng.randint(2, 9)
    pi = rng.randint(1, 4)
    lo, hi = rng.randint(15, 90), 0
    hi = lo + rng.randint(4, 40)
    num = rng.randint(10000, 99999)
    return {
        "cname": first, "cfull": f"{first} {last}", "agent": agent, "agentfull": f"{agent} {rng.choice(LAST)}",
        "company": rng.choice(SHOPS), "city": rng.choice(CITY), "street": rng.choice(STREETS),
        "item": ITEMS[i1], "item2": ITEMS[i2], "device": rng.choice(DEVICES), "comp": rng.choice(COMPETITORS),
        "order": rng.choice([f"#{num}", f"A-{num}{rng.randint(0, 9)}", f"{num // 10}-{rng.randint(1000, 9999)}", f"ORD{num}"]),
        "order2": f"#{rng.randint(10000, 99999)}",
        "track": rng.choice([f"1Z{rng.randint(10**7, 10**8 - 1)}", f"TRK-{rng.randint(100000, 999999)}", f"JD{rng.randint(10**8, 10**9 - 1)}GB"]),
        "amount": f"${hi}.{rng.choice(['00', '50', '99', '49'])}", "amount2": f"${lo}.{rng.choice(['00', '50', '99', '49'])}",
        "month": mon, "odate": f"{mon} {rng.randint(1, 2)}", "date": f"{mon} {a}", "date2": f"{mon} {b}",
        "day": d1, "day2": d2, "plan": PLANS[pi], "plan2": PLANS[pi + 1], "planlow": PLANS[pi - 1],
        "code": rng.choice(CODES), "pct": rng.choice([10, 15, 20, 25]), "n": rng.randint(2, 5),
        "n4": rng.randint(1000, 9999), "last4": rng.randint(1000, 9999), "ver": f"{rng.randint(2, 9)}.{rng.randint(0, 14)}",
        "time": rng.choice(["3:15pm", "10:40am", "11:05am", "4:30pm", "9:20am", "2:50pm"]), "n_house": rng.randint(2, 180),
        "email": f"{first.lower()}.{last.lower()}@{rng.choice(['example.com', 'mail.test', 'inbox.example'])}",
    }


def fill(text: str, ctx: dict) -> str:
    for k, v in ctx.items():
        text = text.replace("{" + k + "}", str(v))
    assert "{" not in text, text
    return text


def parse(frag: str) -> list[tuple[str, str]]:
    """'C: ... | A: ...' -> [('C', '...'), ('A', '...')]"""
    out = []
    for part in frag.split(" | "):
        spk, txt = part.split(": ", 1)
        assert spk in ("C", "A", "S"), frag
        out.append((spk, re.sub(r"\b([Aa]) (?=[aeio])(?!one\b)", r"\1n ", txt.strip())))
    return out


# --------------------------------------------------------------------------------------------
# Topic openers (on-topic, neutral for every statement of the tasks that use them)
# --------------------------------------------------------------------------------------------
TOPICS = {
    "device": ["C: My {device} keeps dropping its connection every few minutes.",
               "C: The {device} won't work properly; the light on the front just blinks orange.",
               "C: Since yesterday my {device} freezes whenever I open its settings in the app.",
               "C: My {device} makes a clicking noise and then shuts off.",
               "C: The {device} I bought from you has stopped syncing with the app.",
               "C: The screen on my {device} goes completely black after a few seconds.",
               "C: I'm having a problem with my {device} from {company}.",
               "C: My {device} is behaving strangely and I need some help with it."],
    "order": ["C: I ordered a {item} from you on {odate}.",
              "C: This is about my recent order, a {item}.",
              "C: I'm writing about the {item} I bought from your online shop.",
              "C: Quick question regarding a {item} I ordered.",
              "C: I placed an order for a {item} and a {item2}.",
              "C: I have a question about an order I placed with {company}.",
              "C: It's about the {item} from my last order."],
    "billing": ["C: I have a question about a payment.",
                "C: I was looking at my bank statement this morning.",
                "C: Something about my latest bill needs checking.",
                "C: I'm contacting you about the payment for my {plan} plan.",
                "C: This is about my billing with {company}."],
    "subscription": ["C: I've been on the {plan} plan for about a year.",
                     "C: I have a question about my {plan} subscription.",
                     "C: This is about my membership with {company}.",
                     "C: I'm writing regarding my monthly {plan} plan.",
                     "C: My household uses your streaming service on the {plan} tier."],
    "account": ["C: This is about my account, registered under {email}.",
                "C: I have a question about my {company} account.",
                "C: Quick question about my online profile.",
                "C: I'm writing about my customer account with you."],
}
TOPICS["any"] = TOPICS["device"][:4] + TOPICS["order"][:4] + TOPICS["billing"][:3] + TOPICS["subscription"][:2]
TOPICS["order_device"] = TOPICS["device"][:4] + TOPICS["order"]

# --------------------------------------------------------------------------------------------
# Label-neutral filler
# --------------------------------------------------------------------------------------------
C_FILL = ["I'm writing from my phone, so please excuse any typos.", "Hope you're having a good week.",
          "Thanks in advance for your help.", "I work late shifts, so replies in the evening suit me best.",
          "My partner usually deals with these things, but she is away this week.", "I've been a customer of yours for a few years now.",
          "I'm not very technical, so please keep it simple.", "I'd appreciate a reply when you get a moment.",
          "I live in {city}, in case that matters.", "Hope this message finds you well."]
A_FILL = ["Thanks for reaching out, {cname}.", "Thanks for getting in touch.", "Let me take a look at this for you.",
          "Thanks for the details.", "One moment while I pull up your details.", "Thanks for your patience, {cname}.",
          "Okay, I'm looking at your account now."]
OPENERS = ["Hi! How can I help you today?", "Hello, you're chatting with {company} support. What can I do for you?",
           "Hi {cname}, thanks for contacting us. What's up?", "Welcome! What can I help with?"]
PARAS = ["For some context, I run a small bakery with four staff, and I handle all of our orders and accounts myself, "
         "usually early in the morning before we open or late in the evening after closing.",
         "A bit of background: I have two kids at home, so I usually do all the admin for the family on Sunday "
         "evenings when it's quiet, and that's probably when I'll read your reply.",
         "I should say that I'm generally happy with {company}. I found you through a friend in {city} who recommended "
         "you, and I've told a few colleagues about you as well.",
         "We're a small charity and I handle most of our purchases and accounts alongside my actual job, so I'd be "
         "grateful if you could keep the reply short and to the point.",
         "I'm travelling for work for most of this month and only check messages in the evenings, so please don't "
         "worry if it takes me a day or so to respond to anything you send.",
         "Just so you know, English is my second language, so if anything in my message is unclear, please ask and "
         "I'll do my best to explain it differently.",
         "I'm writing during my lunch break at work, where the internet connection is not great, so a short answer by "
         "email would be easiest for me to read later on the train home."]
SIGNS = ["Thanks,\n{cname}", "Regards, {cfull}", "Best,\n{cfull}", "- {cname}", "Cheers, {cname}",
         "{cfull}\nOffice manager, {company}\n{city}", "Kind regards,\n{cfull}\nSent from my tablet"]
GREETS = ["Hi,", "Hello,", "Hi there,", "Dear support team,", "Good morning,", "Hello {company} team,"]
SUBJECTS = ["Support request", "Question", "Need some help", "Re: your message", "(no subject)", "Follow-up",
            "Hello", "Please read", "Help please"]
CHANNELS = ["email", "chat", "web_form", "app", "social"]
ROLE_PAIRS = [("customer", "agent"), ("user", "assistant"), ("customer", "support_agent"), ("customer", "agent")]


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------
def merge(turns):
    out = []
    for spk, txt in turns:
        if out and out[-1][0] == spk and spk != "S":
            out[-1] = (spk, out[-1][1] + " " + txt)
        else:
            out.append((spk, txt))
    return out


def render(rng, turns, ctx, chat_only=False):
    only_customer = all(s == "C" for s, _ in turns)
    r = rng.random()
    if chat_only:
        r = 0.3 + 0.7 * r
    if only_customer and r < 0.45:                       # plain email
        body = " ".join(t for _, t in turns)
        parts = [fill(rng.choice(GREETS), ctx)] if rng.random() < 0.7 else []
        parts.append(body)
        if rng.random() < 0.75:
            parts.append(fill(rng.choice(SIGNS), ctx))
        return "\n\n".join(parts) if rng.random() < 0.6 else " ".join(parts).replace("\n", " ")
    if r < 0.55:                                          # transcript text
        cl = rng.choice(["Customer", ctx["cname"], "Customer"])
        al = rng.choice(["Agent", "Support", f"{ctx['agent']} (support)"])
        lines = []
        for s, t in turns:
            lines.append(f"{cl}: {t}" if s == "C" else f"{al}: {t}" if s == "A" else f"[System note] {t}")
        head = rng.choice(["", f"Chat transcript - {ctx['company']}\n", f"Conversation with {ctx['cfull']}\n"])
        return head + "\n".join(lines)
    if r < 0.78:                                          # JSON ticket
        tk = {"ticket_id": f"T-{rng.randint(100000, 999999)}", "channel": rng.choice(CHANNELS),
              "customer": ctx["cfull"], "subject": rng.choice(SUBJECTS)}
        if only_customer and rng.random() < 0.6:
            tk["body"] = " ".join(t for _, t in turns)
        else:
            names = {"C": "customer", "A": rng.choice(["agent", f"agent:{ctx['agent']}"]), "S": "system"}
            tk["messages"] = [{"from": names[s], "text": t} for s, t in turns]
        if rng.random() < 0.4:
            tk["created_at"] = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(7, 21):02d}:{rng.randint(0, 59):02d}"
        return tk
    cr, ar = rng.choice(ROLE_PAIRS)                        # conversation turns
    conv = []
    if turns[0][0] == "C" and rng.random() < 0.5:
        conv.append({"role": ar, "content": fill(rng.choice(OPENERS), ctx)})
    names = {"C": cr, "A": ar, "S": "system"}
    conv += [{"role": names[s], "content": t} for s, t in turns]
    if rng.random() < 0.25:
        return {"conversation": conv, "channel": rng.choice(["web", "app", "whatsapp"])}
    return conv


# --------------------------------------------------------------------------------------------
# Task specs
# --------------------------------------------------------------------------------------------
YN = {"true": "Yes", "false": "No"}


def spec(id, q, topic, T, TH, D, B, E=(), crit=None, domain="customer_support", chat=False):
    return dict(id=id, q=q, topic=topic, T=T, TH=TH, D=D, B=B, E=list(E), crit=crit, domain=domain, chat=chat)


SPECS = [
    # ------------------------------------------------------------------ devices / technical
    spec("tried-restart", "The customer has already tried restarting the device.", "device",
         T=["C: I've already switched it off and on again, twice.",
            "C: Restarting it was the first thing I did, but it made no difference.",
            "C: I rebooted the {device} this morning and the problem came back within an hour.",
            "C: I unplugged it for a full minute and plugged it back in. Same thing.",
            "C: I have already tried restarting the device.",
            "A: Have you tried restarting it? | C: Yes, several times already, no luck.",
            "C: Power-cycled it {n} times now, nothing changes."],
         TH=[("decoy", "C: I didn't expect a reboot to help, but I did restart it and it still fails."),
             ("decoy", "C: I haven't reset it to factory settings, but I have turned it off and on again."),
             ("boundary", "C: The only thing I've tried so far is a restart.")],
         D=["C: I haven't restarted it yet because it's in the middle of a download.",
            "C: I haven't tried turning it off and on, I didn't want to lose my settings.",
            "C: I'm not going to restart it until you tell me it's safe.",
            "C: Honestly, I haven't rebooted it at all."],
         B=["A: Could you try restarting it? | C: I'm not at home right now, I'll try that tonight.",
            "C: I plan to restart it this evening when nobody is using it.",
            "C: I restarted my phone, but not the {device} itself.",
            "C: The {device} restarts by itself every few hours; I haven't touched it.",
            "A: The next step is to restart the {device}. Let me know how it goes."],
         E=["C: It started a few minutes ago and I messaged you straight away, before touching anything.",
            "C: I don't know where to start. What should I try first?"]),
    spec("resolved", "Has the issue been resolved by the end of the conversation?", "device", crit=YN, chat=True,
         T=["A: Please hold the power button for ten seconds and let go. | C: Done... and it's working again! Thank you.",
            "A: I've pushed a fix to your device remotely. Can you check now? | C: Yes, it's back to normal.",
            "A: Try re-pairing it with the app from the Devices tab. | C: That did it, everything syncs now.",
            "A: Could you switch it to the 5 GHz network? | C: Okay, changed it. It's been stable for twenty minutes, so we're good. | A: Great to hear.",
            "A: Please reinstall the app and sign in again. | C: Update: after reinstalling, it all works. You can close this.",
            "A: I've replaced the faulty setting on our side. | C: Confirmed, the problem is gone."],
         TH=[("decoy", "A: Let's reset the network settings. | C: Hmm, still nothing... oh wait, now it connected. Yes, it's fixed!"),
             ("decoy", "C: I was about to give up, honestly. | A: One last thing: update the firmware from the app. | C: No way, that worked. All good now.")],
         D=["A: Please try restarting it. | C: I did. It worked for a minute, but now the same problem is back.",
            "A: I've reset your device from our side. | C: Still not working, unfortunately.",
            "A: This should fix it. | C: Nope, no change at all.",
            "C: I thought it was fixed yesterday, but it's happening again today. | A: Let me look into it further."],
         B=["A: I've booked a technician for {day}; they should be able to sort it out. | C: Okay, thanks.",
            "A: Your login problem is fixed now. | C: Thanks, but the {device} itself still won't connect.",
            "A: Our engineers expect to release a fix next week. | C: Alright, I'll wait then.",
            "A: Try these steps and let me know if it helps. | C: Will do, I'll try them later today."],
         E=["A: Can you tell me the model number on the back of the {device}? | C: Give me a second to find it.",
            "A: Which app version are you on? | C: I'll check and get back to you."]),
    spec("after-update", "The customer says the problem started after a software update.", "device",
         T=["C: It was fine until the {ver} update installed on {day}.",
            "C: Ever since the latest firmware update, it does this.",
            "C: The update you pushed last week broke it.",
            "C: This started right after I updated the app.",
            "C: I updated it to version {ver} and from that moment on it's been misbehaving.",
            "C: The problem started after a software update."],
         TH=[("decoy", "C: I don't usually blame updates, but this honestly began the day after version {ver} installed."),
             ("boundary", "C: Not the first update, that one was fine. It's the second one, {ver}, that caused this.")],
         D=["C: It's not the update, it was doing this long before I updated.",
            "C: I haven't installed any updates since I bought it.",
            "C: Before you ask: no, there was no update recently. It just started on its own.",
            "A: Some customers see this after updating to {ver}. | C: I see, but I'm still on an older version."],
         B=["C: It started after I moved it to a different room.",
            "C: I'm hoping the next update will fix it.",
            "A: Did this start after the recent update? | C: I'm not sure when it started, sorry.",
            "C: It started after the power cut we had on {day}."],
         E=["C: It's been like this since the day it arrived.",
            "C: It happens mostly in the evenings."]),
    spec("agent-factory-reset", "Did the agent ask the customer to perform a factory reset?", "device",
         T=["A: Please restore it to factory settings: hold the reset pin for 15 seconds.",
            "A: The next step would be a factory reset. Can you do that and let me know?",
            "A: Could you wipe it back to its original settings from Settings > System > Reset all?",
            "A: I'd like you to do a full factory reset, then set it up again from scratch.",
            "A: Please perform a factory reset."],
         TH=[("boundary", "C: I'd rather not lose my settings. | A: I understand, but a factory reset is the only option left, so please go ahead with it."),
             ("decoy", "A: A simple restart won't be enough this time. Please reset it to factory defaults.")],
         D=["A: Please don't factory reset it, you'd lose your recordings. Just unplug it for a minute instead.",
            "A: There's no need for a factory reset; I've fixed the setting from our end.",
            "C: Should I factory reset it? | A: No, let's avoid that for now."],
         B=["C: I already did a factory reset yesterday, before contacting you.",
            "A: Please restart it by unplugging it for thirty seconds.",
            "C: Should I factory reset it? | A: Let me check with my colleague first and get back to you."],
         E=["A: Can you tell me which firmware version it shows?",
            "A: Could you describe what the lights on the front are doing?"]),
    spec("warranty", "Is the device still covered by warranty?", "device",
         T=["A: Good news: I've checked, and your {device} is still covered by warranty.",
            "A: I've looked up the serial number and the unit is still within its warranty period.",
            "S: Warranty status: ACTIVE.",
            "A: Since it's under warranty, the repair won't cost you anything.",
            "A: Your extended warranty is valid for another {n} months, so this is covered."],
         TH=[("decoy", "A: The standard warranty has ended, but you bought the extended cover, which is still active for another year."),
             ("decoy", "C: I assumed the warranty was over. | A: Actually no, it's still valid until the end of {month}.")],
         D=["A: Unfortunately the warranty expired in {month}, so the repair would be charged.",
            "A: I'm afraid this unit is no longer under warranty.",
            "C: I know the warranty ran out last year, but can you help anyway?",
            "S: Warranty status: EXPIRED."],
         B=["A: You could buy an extended warranty today, but the original one has already ended.",
            "A: The warranty covered the first repair, but it ended on {date}, before this new fault started.",
            "A: Your old {device} was under warranty when we replaced it, but this one was bought second-hand and has no cover."]),
    spec("known-bug", "The agent confirmed that this is a known bug.", "device",
         T=["A: Yes, this is a known issue with version {ver}, and our engineers are working on it.",
            "A: We've had several reports of exactly this; it's a bug on our side.",
            "A: I can confirm it's a known bug.",
            "A: You're not the only one: this is a known problem since the last release.",
            "A: Our team is already tracking this bug internally."],
         TH=[("decoy", "C: I bet you've never seen this before. | A: Actually, we have. It's a known bug and a fix is planned."),
             ("boundary", "A: It's not your settings. It's a known defect in the firmware.")],
         D=["A: This isn't a known issue; I haven't seen it reported before.",
            "A: I couldn't find any known bug matching this, so let's troubleshoot.",
            "C: Is this a known bug? | A: Not as far as I can tell."],
         B=["C: This must be a known bug, surely other people have it too.",
            "C: A forum post says this is a known bug. Can you confirm? | A: Let me check with the product team and get back to you.",
            "A: There was a bug like this in an older version, but it was fixed, and your version isn't affected."],
         E=["A: Could you tell me which phone you're using with it?",
            "A: Let me run a quick diagnostic on your device."]),
    spec("technician", {"statement": "A technician visit has been scheduled.", "note": "Judge only from what the ticket or conversation says."}, "device",
         T=["A: I've booked a technician for {day} between 9 and 12.",
            "A: A technician will come to your address on {date}; you'll get a text the day before.",
            "S: Field visit confirmed: {day}, 13:00-17:00, engineer {agentfull}.",
            "A: Done, the engineer appointment is set for {day} morning."],
         TH=[("decoy", "A: We can't fix this remotely, so I've scheduled an engineer to visit on {day}."),
             ("boundary", "C: {day} doesn't work for me. | A: No problem, I've moved the technician visit to {day2} instead.")],
         D=["A: We don't do home visits for this model; please send it to our repair centre.",
            "A: No technician is needed, you can fix this yourself with the steps below.",
            "C: Can someone come out? | A: I'm afraid we can't send anyone to your area."],
         B=["A: Once the spare part arrives, we'll contact you to schedule a technician.",
            "C: I'd like a technician to come out on {day}. | A: I'll pass that request to the scheduling team.",
            "A: A technician visited last month for a different fault; this time we'll try remote support."],
         E=["A: Let's try a few remote steps first. Please open the app.",
            "A: Can you read me the serial number?"]),
    # ------------------------------------------------------------------ orders / delivery
    spec("order-number", "The customer provided their order number.", "order", domain="ecommerce_orders",
         T=["C: My order number is {order}.",
            "C: It's order {order}.",
            "A: Could I have your order number? | C: Sure, {order}.",
            "C: Order ref: {order}.",
            "C: The number on my confirmation email is {order}.",
            "C: For reference, the order is {order}."],
         TH=[("decoy", "C: I don't have the receipt anymore, but the order number is {order}."),
             ("boundary", "C: Order number {order}... | A: I can't find that one. | C: Sorry, typo. The correct order number is {order2}.")],
         D=["C: I can't find my order number anywhere, sorry.",
            "C: I don't have the order number, but I can give you my email address.",
            "A: What's your order number? | C: I don't have it to hand. Can you look it up by my name?"],
         B=["A: Please reply with your order number so I can check.",
            "C: My tracking number is {track}.",
            "C: I'll send the order number as soon as I'm home."],
         E=["C: I paid with my credit card, if that helps.",
            "C: I ordered it under my partner's name."]),
    spec("agent-asked-order", "Did the agent ask for the order number?", "order", domain="ecommerce_orders",
         T=["A: Could you share your order number?",
            "A: What's the order number, please?",
            "A: To look into this, I'll need the order number from your confirmation email.",
            "A: Can you tell me the number of the order?"],
         TH=[("decoy", "A: I can't find it by your email. Could you give me the order number instead?"),
             ("decoy", "C: I don't know what details you need. | A: Just the order number, please.")],
         D=["A: No need for the order number, I found it using your email address.",
            "A: You don't have to send the order number; I can see your account."],
         B=["C: My order number is {order}. | A: Thanks, let me check.",
            "A: Could you send me a photo of the shipping label?",
            "A: What's the email address on your account?"],
         E=["A: Let me check what happened.",
            "A: I can see your recent orders here. Which one is it about?"]),
    spec("damaged", "The order arrived damaged.", "order", domain="ecommerce_orders",
         crit={"true": "The item was already damaged when it arrived", "false": "It did not arrive damaged"},
         T=["C: When I opened the box, the {item} was cracked.",
            "C: It came with a big dent in the side.",
            "C: The {item} was broken when it arrived.",
            "C: It arrived smashed; there were pieces rattling around in the box.",
            "C: The order arrived damaged.",
            "C: One of the parts had snapped off when I unpacked it."],
         TH=[("decoy", "C: The box looked perfect from the outside, but the {item} inside was cracked."),
             ("decoy", "C: Delivery was fast, no complaints there. The problem is the {item} came with a deep scratch across the front.")],
         D=["C: It arrived in perfect condition, I just don't like the colour.",
            "C: Nothing was broken. The {item} is just not what I expected.",
            "C: It got here safely and works fine; I'd only like to know how to clean it."],
         B=["C: The {item} arrived fine but broke after three weeks of normal use.",
            "C: The order hasn't arrived yet, and I'm worried it'll get damaged in this weather.",
            "C: I dropped the {item} myself on the first day and it cracked."],
         E=["C: It arrived two days later than promised.",
            "C: The size is too small, so I'd like a bigger one."]),
    spec("wrong-item", "Did the customer receive the wrong item?", "order", domain="ecommerce_orders",
         T=["C: I ordered a {item} but received a {item2}.",
            "C: The box contained someone else's order.",
            "C: I ordered the black one and you sent me a white one.",
            "C: What came is not what I ordered at all.",
            "C: The {item} in the box is a completely different model from the one on my order."],
         TH=[("decoy", "C: The packaging was right and the label said {item}, but inside was a {item2}."),
             ("decoy", "C: I'm not usually one to complain, but the item in the box is not the one I bought.")],
         D=["C: I got exactly what I ordered, it just doesn't suit me.",
            "C: The item is the right one, but it's not as comfortable as I hoped.",
            "C: Everything matches my order; I'm only asking about the warranty."],
         B=["C: The {item} is correct, but the {item2} I ordered with it is missing.",
            "C: The {item} is right, but the invoice lists it under the wrong name.",
            "C: I think I picked the wrong size myself by mistake; you sent exactly what I chose."],
         E=["C: The delivery driver left it with my neighbour.",
            "C: It arrived on time, thanks. How do I register it?"]),
    spec("not-arrived", "Is the customer saying that the package has not arrived yet?", "order", domain="ecommerce_orders",
         T=["C: It still hasn't shown up.",
            "C: I'm still waiting for it; it's now {n} days past the estimated date.",
            "C: Nothing has been delivered to my address yet.",
            "C: The tracking hasn't moved since {day} and I haven't received anything.",
            "C: Where is my parcel? It was meant to arrive on {day}."],
         TH=[("decoy", "C: You sent me an email saying it was delivered, but no parcel ever arrived."),
             ("decoy", "C: The first order arrived fine. This second one, though, hasn't come yet.")],
         D=["C: It arrived yesterday, thanks. I just have a question about assembly.",
            "C: The parcel came this morning, no problem with the delivery."],
         B=["C: It arrived, but one of the items is missing from the box.",
            "C: My previous order never arrived, but this one was delivered fine.",
            "C: It was delivered to my neighbour, who handed it over this evening."],
         E=["C: I've been using it for a week and love it, but the strap is a bit short.",
            "C: How do I return it? It's too big."]),
    spec("address-change", "The customer wants to change the delivery address.", "order", domain="ecommerce_orders",
         T=["C: Could you send it to my office instead? The address is {n_house} {street}, {city}.",
            "C: I've moved, so please update the shipping address to my new place in {city}.",
            "C: Can you redirect the parcel to my parents' house?",
            "C: I need the delivery address changed.",
            "C: Please ship it to {n_house} {street} instead of the address on the order."],
         TH=[("decoy", "C: The billing address is fine. It's the delivery address I need to change, to my new flat in {city}."),
             ("decoy", "C: I'm not cancelling. I just need it delivered somewhere else, as I'm away that week.")],
         D=["C: The address is correct, please don't change it. I just want to know when it will arrive.",
            "C: No need to change the address, I'll be home that day.",
            "A: Would you like me to redirect the parcel? | C: No thanks, leave it as it is."],
         B=["C: Please update my billing address for the invoice; the delivery can stay as it is.",
            "C: For future orders, please use my new address. This one can still go to the old one.",
            "C: Could you change the delivery date to {day}? Same address."],
         E=["C: How long does standard shipping take?",
            "C: Can I still add a second item to the same order?"]),
    spec("express", "According to the ticket, did the customer pay for express shipping?", "order", domain="ecommerce_orders",
         T=["C: I paid extra for next-day delivery.",
            "C: I chose express shipping at checkout, {amount2} on top.",
            "S: Shipping method: Express (paid {amount2}).",
            "C: I specifically paid for express delivery and it's still not here."],
         TH=[("decoy", "C: Standard shipping would have been free, but I paid for express because I needed it quickly."),
             ("boundary", "C: It wasn't the cheapest option: I paid {amount2} for the 24-hour delivery.")],
         D=["C: I went with the free standard shipping, not express.",
            "S: Shipping method: Standard (free).",
            "C: I didn't pay for faster delivery, I just expected it a bit sooner."],
         B=["C: I wanted express, but it wasn't available for my postcode, so I picked standard.",
            "C: Next time I'll pay for express shipping.",
            "A: We've upgraded your parcel to express delivery free of charge."]),
    spec("delivery-eta", "The agent gave the customer an estimated delivery date.", "order", domain="ecommerce_orders",
         T=["A: It should reach you by {day}.",
            "A: The carrier expects to deliver it on {date}.",
            "A: You can expect it within 2 to 3 working days, so around {day}.",
            "A: Estimated delivery is {date}."],
         TH=[("decoy", "A: I can't speed it up, but it's due to arrive on {day}."),
             ("boundary", "C: I need it by {day}. | A: It's scheduled for {day2}, so it may be a little later than you hoped.")],
         D=["A: I'm afraid I can't give you a delivery date until the warehouse confirms stock.",
            "A: I don't have an estimate yet, but I'll email you when it ships."],
         B=["C: I need it delivered by {date}. | A: I've noted that on your order.",
            "A: Your order was dispatched on {date}.",
            "C: The website said it would arrive on {date}. | A: Let me look into it."],
         E=["A: I've confirmed your address is correct.",
            "A: Your payment was received and the order is confirmed."]),
    # ------------------------------------------------------------------ refunds / returns
    spec("agent-promise-refund", "Did the agent promise a refund?", "order", domain="ecommerce_returns",
         T=["A: I'll refund the full {amount} to your card today.",
            "A: You'll get your money back; the refund will be processed within 5 days.",
            "A: I've arranged a refund of {amount} for you.",
            "A: Don't worry, we'll refund you in full.",
            "A: Once we receive the item, I'll refund you the whole amount."],
         TH=[("decoy", "A: I can't send a replacement since it's out of stock, but I will refund you the {amount}."),
             ("decoy", "C: I don't expect much from you. | A: You'll get a full refund, I promise.")],
         D=["A: I'm afraid I can't offer a refund, as the return window has closed.",
            "A: Refunds aren't possible for this item, but I can help with other options."],
         B=["A: I'll send you a replacement free of charge.",
            "A: I can offer you store credit of {amount}.",
            "C: I want a refund. | A: I'll check with my supervisor whether that's possible.",
            "C: Can you promise me a refund? | A: I'll pass your request to the billing team; they decide."],
         E=["A: Your parcel is with the courier and should arrive tomorrow.",
            "A: I can see your order in our system. What seems to be the problem with it?"]),
    spec("wants-refund", "Is the customer asking for their money back?", "order", domain="ecommerce_returns",
         T=["C: I'd like a refund, please.",
            "C: Please return the {amount} to my card.",
            "C: I want my money back.",
            "C: Can you reimburse me for this?",
            "C: Just refund the order, I don't want it anymore."],
         TH=[("decoy", "C: I don't want a replacement. I want the {amount} back on my card."),
             ("decoy", "C: I'm not angry, really, but I would like to be refunded.")],
         D=["C: I don't want a refund, just send me a new one.",
            "C: No refund needed, I'll keep it. I just wanted to let you know."],
         B=["C: Could I exchange it for a larger size?",
            "C: Can you send me the missing part?",
            "A: Would you like a refund? | C: Let me think about it and get back to you."],
         E=["C: How do I attach the strap?",
            "C: Does it come with a manual in Spanish?"]),
    spec("refund-issued", "The refund has already been issued.", "order", domain="ecommerce_returns", crit=YN,
         T=["A: Your refund of {amount} was processed on {date}.",
            "S: Refund {amount} issued {date} to Visa ending {last4}.",
            "A: I've just refunded the {amount}; it may take 3-5 days to show on your statement.",
            "C: I can see the refund on my account now, thanks."],
         TH=[("decoy", "C: The money isn't in my bank yet. | A: The refund went out on {day}; banks can take a few days to show it."),
             ("boundary", "A: The refund was issued yesterday, but to the original payment method, not your new card.")],
         D=["A: No refund has been issued yet.",
            "C: It's been two weeks and I still haven't been refunded. | A: I can see it hasn't been processed yet."],
         B=["A: Your refund has been approved and will be issued once the return reaches our warehouse.",
            "A: The refund for your previous order went through last month; this one is still pending.",
            "A: I'll process the refund tomorrow morning."],
         E=["C: What's your return policy for this item?",
            "C: Can I return it if I've already opened the box?"]),
    spec("return-label", "Has a return label been sent to the customer?", "order", domain="ecommerce_returns",
         crit={"true": "A return label was already sent", "false": "No label has been sent"},
         T=["A: I've emailed you a prepaid return label.",
            "A: The return label is attached to this message.",
            "C: Thanks, I got the return label you sent.",
            "S: Return label RL-{n4} generated and emailed to customer."],
         TH=[("decoy", "C: I can't find the label. | A: I sent it to your email at {time}; please check the spam folder."),
             ("boundary", "A: I've sent the label again, to your new email address this time.")],
         D=["A: We don't provide return labels for this item; you'll need to post it back yourself.",
            "C: I still haven't got any return label. | A: Right, I can see one was never created."],
         B=["A: I'll send the return label as soon as my supervisor approves the return.",
            "C: I printed my own label at the post office.",
            "C: Could you send me a return label, please? | A: Let me check if your order qualifies first."],
         E=["C: I'd like to return the {item}. What are my options?",
            "C: How many days do I have to return the {item}?"]),
    spec("shipped-back", "The customer has already sent the item back.", "order", domain="ecommerce_returns",
         T=["C: I dropped it off at the post office on {day}.",
            "C: I returned it last week, tracking {track}.",
            "C: The parcel is on its way back to you; I posted it yesterday.",
            "C: I've already sent the item back."],
         TH=[("decoy", "C: I didn't wait for your reply, I just posted it back on {day}."),
             ("decoy", "C: I haven't received any refund, even though the {item} went back to you {n} days ago.")],
         D=["C: I haven't sent it back yet because I'm waiting for the label.",
            "C: It's still here in the box; I didn't want to post it without asking first."],
         B=["C: I'll send it back tomorrow morning.",
            "C: I sent back the {item2} from the same order, but I still have the {item}.",
            "A: Please post it back to us within 14 days. | C: Will do."],
         E=["C: Is it possible to return an opened {item}?",
            "C: Do I need the original packaging to return it?"]),
    spec("store-credit", "The customer agreed to accept store credit.", "order", domain="ecommerce_returns",
         T=["A: I can offer store credit of {amount}. | C: That works for me, thanks.",
            "C: Store credit is fine, I'll use it for my next order.",
            "A: Would a voucher for the full amount be acceptable? | C: Yes, go ahead.",
            "C: Happy to take the credit instead of a refund."],
         TH=[("decoy", "C: I'd normally insist on a refund, but okay, I'll accept the store credit this time."),
             ("decoy", "A: I can't refund it, but I can give you {amount} in store credit. | C: Fine, I'll take the credit.")],
         D=["A: I can offer store credit. | C: No, I don't want credit. I want my money back.",
            "C: I'm not interested in store credit."],
         B=["A: Would store credit work for you? | C: Let me think about it and I'll let you know.",
            "C: Last time I accepted store credit, but this time I'd really prefer a refund."],
         E=["A: Your return has been received at our warehouse.",
            "A: I can see your return request in our system."]),
    spec("replacement", "Is the customer asking for a replacement item?", "order", domain="ecommerce_returns",
         T=["C: Please send me a new one.",
            "C: I'd like a replacement, not a refund.",
            "C: Could you swap it for a working unit?",
            "C: Can you ship another {item} to replace this one?"],
         TH=[("decoy", "C: I don't want my money back, I want another {item} that works.")],
         D=["C: I don't want a replacement, just refund me.",
            "C: No need to send another one, I'll keep this one."],
         B=["C: My friend asked for a replacement when hers broke; I'd just like to know how to clean mine.",
            "C: I'd like my money back for this one, please."],
         E=["C: The colour is a bit lighter than in the photos.",
            "C: Is there a matching cover for it?"]),
    # ------------------------------------------------------------------ billing
    spec("double-charge", "The customer was charged twice for the same purchase.", "billing", domain="billing",
         T=["C: I see two identical charges of {amount} on {date}, for one order.",
            "C: You took the payment twice for the same order.",
            "C: My card was debited {amount} two times for a single month of my subscription.",
            "C: I've been double charged for one purchase."],
         TH=[("decoy", "C: I'm not disputing the price; the issue is that the same {amount} was taken twice for one order."),
             ("boundary", "S: Payments: {amount} on {date} (order {order}); {amount} on {date} (order {order}).")],
         D=["C: I was only charged once, I checked; my question is about the invoice.",
            "C: I thought I'd been charged twice, but the second one was just a pending hold that disappeared."],
         B=["C: There are two charges of {amount}, one for my order and one for my friend's order that I also paid for.",
            "S: Payments: {amount} on {date} (order {order}); {amount2} on {date2} (order {order2}).",
            "C: I was charged {amount} instead of {amount2}."],
         E=["C: Can you explain the tax line on my bill?",
            "C: Which currency will I be billed in from next month?"]),
    spec("payment-declined", "Does the message say that the customer's payment was declined?", "billing", domain="billing",
         T=["C: My card was declined at checkout.",
            "C: The payment didn't go through; it said 'transaction declined'.",
            "S: Payment attempt {date}: DECLINED (insufficient funds).",
            "C: Every time I try to pay, the payment gets rejected."],
         TH=[("decoy", "C: My card works everywhere else, but your site declined it this morning."),
             ("boundary", "C: Last month's payment was accepted, but this month's was declined.")],
         D=["C: The payment went through fine, I just need a receipt.",
            "S: Payment attempt {date}: SUCCESS.",
            "C: It wasn't declined; I simply haven't paid yet because I'm waiting for payday."],
         B=["C: My card was declined once last year, but since then payments have worked fine.",
            "C: My friend's card got declined on your site; mine was accepted.",
            "C: I'm worried my payment might be declined because my card expires soon."],
         E=["C: Can I change the email address that receipts go to?",
            "C: Do you accept bank transfers?"]),
    spec("invoice", "Is the customer asking for an invoice?", "billing", domain="billing", crit=YN,
         T=["C: Could you send me an invoice for {month}?",
            "C: I need a VAT invoice with my company name, {company}.",
            "C: Please email me an invoice for order {order}.",
            "C: Where can I download the invoice for my last payment?"],
         TH=[("decoy", "C: I don't need a refund or anything like that, just a proper invoice for my accountant.")],
         D=["C: I already have the invoice, thanks. My issue is the delivery.",
            "A: Would you like a copy of the invoice? | C: No thanks, not needed.",
            "C: Your invoice shows {amount}, which is correct. I'm only asking when it ships."],
         B=["C: I got the invoice you sent last time, thanks. Today I'm asking about the renewal date.",
            "C: My accountant already downloaded the invoices; I'm asking about the renewal date."],
         E=["C: Why was I charged {amount} this month?",
            "C: When does my next payment go out?"]),
    spec("price-increase", "Does the customer complain about a price increase?", "subscription", domain="billing",
         T=["C: Why has my monthly price gone up from {amount2} to {amount}?",
            "C: You raised the price again without any warning, that's not okay.",
            "C: The {plan} plan used to cost less. This increase is ridiculous.",
            "C: I'm unhappy that my subscription suddenly costs more."],
         TH=[("decoy", "C: I love the service, I really do. But this latest price hike is too much.")],
         D=["C: I'm not complaining about the price, it's fair for what I get.",
            "C: The price went up a little, which is fine by me. My problem is the app."],
         B=["C: The price dropped last month; can I get the difference for the month I already paid?",
            "C: My friend says your prices went up. Is that true for my plan too?"],
         E=["C: How do I add a second user to my plan?",
            "C: Can I use my plan on a second device?"]),
    spec("discount-code", "Did the customer try to use a discount code?", "order", domain="ecommerce_orders",
         T=["C: My code {code} isn't working at checkout.",
            "C: I entered the promo code {code} but the price didn't change.",
            "C: I used the discount code from your newsletter, and it was applied.",
            "C: The voucher code {code} says 'expired' when I enter it."],
         TH=[("decoy", "C: No, the code did not work; it said invalid. I tried {code} three times.")],
         D=["C: I didn't use any discount code.",
            "C: I never got round to entering the code; the sale had already ended."],
         B=["A: Here's a code for {pct}% off your next order: {code}.",
            "C: Do you have any discount codes available?",
            "C: My sister used a code on her order; I paid full price."],
         E=["C: What colours does the {item} come in?",
            "C: Is the {item} back in stock soon?"]),
    spec("paypal", "Was the order paid with PayPal?", "order", domain="ecommerce_orders",
         T=["C: I paid through PayPal.",
            "S: Payment method: PayPal ({email}).",
            "C: The money came out of my PayPal balance."],
         TH=[("decoy", "C: I usually pay by card, but for this order I used PayPal.")],
         D=["C: I didn't use PayPal, I paid by bank transfer.",
            "S: Payment method: Visa ending {last4}."],
         B=["C: I tried PayPal first, but it failed, so I paid with my debit card in the end.",
            "C: I paid by card this time; next time I'll use PayPal."]),
    spec("shipped", "Has the order already been shipped?", "order", domain="ecommerce_orders",
         T=["A: Your order left our warehouse on {day}.",
            "S: Status: shipped {date}, tracking {track}.",
            "A: It was dispatched yesterday and is with the courier now."],
         TH=[("decoy", "A: It's not delivered yet, but it has been shipped and is in transit.")],
         D=["A: It hasn't left our warehouse yet.",
            "S: Status: awaiting payment, not shipped."],
         B=["A: It's scheduled to ship tomorrow.",
            "A: Your first parcel was shipped, but this order is still being packed."]),
    # ------------------------------------------------------------------ subscriptions / accounts
    spec("cancel-sub", "Is the customer asking to cancel their subscription?", "subscription",
         crit={"true": "Wants to cancel the subscription", "false": "Wants something else"},
         T=["C: Please cancel my subscription.",
            "C: I'd like to end my {plan} membership at the end of this month.",
            "C: How do I stop my plan from renewing? I want out.",
            "C: I don't want to be subscribed anymore, please close it."],
         TH=[("decoy", "C: It's nothing to do with the price or your service, I just want to cancel the subscription.")],
         D=["C: I'm not cancelling, I just want to pause for two months.",
            "C: I don't want to cancel, just switch my payment card."],
         B=["C: Please cancel my last order, not the subscription.",
            "C: I want to downgrade from {plan} to {planlow}.",
            "C: My daughter wants to cancel her own subscription; can she do it herself?"],
         E=["C: How do I change my password?",
            "C: Can I share my plan with my partner?"]),
    spec("upgrade", "The customer wants to upgrade to a higher plan.", "subscription",
         T=["C: I'd like to move up from {plan} to {plan2}.",
            "C: Can I upgrade? We need more seats.",
            "C: Please switch me to the next tier up.",
            "C: We've outgrown the {plan} plan, so we want the bigger one."],
         TH=[("decoy", "C: I'm not unhappy with {plan} at all, but we need the extra features of {plan2}, so please upgrade us.")],
         D=["C: I'm happy on {plan}, no need to upgrade.",
            "A: Would you like to upgrade? | C: No thanks, not right now."],
         B=["C: I want to downgrade to {planlow}.",
            "C: I upgraded last month and I'd like to know what I'm paying now.",
            "A: You could upgrade to {plan2} for more storage. | C: I'll think about it."],
         E=["C: Where can I download my invoices?",
            "C: Can I change the day my payment is taken?"]),
    spec("charged-after-cancel", "The customer says they were charged after cancelling.", "subscription", domain="billing",
         T=["C: I cancelled on {date} and you still took {amount} from my card this week.",
            "C: I closed my subscription last month, yet another payment went out.",
            "C: Why am I still being billed? I cancelled weeks ago."],
         TH=[("boundary", "C: I cancelled on {date}, and the charge came on {date2}."),
             ("decoy", "C: I'm not disputing last month's payment. It's the new charge that came after I cancelled.")],
         D=["C: I haven't cancelled yet, I'm just asking about the last charge.",
            "C: I got charged, but to be fair I hadn't cancelled in time."],
         B=["C: I was charged on {date}, and I only cancelled on {date2}.",
            "C: I'm thinking about cancelling, but I'm worried you'll still charge me afterwards."],
         E=["C: I'd like to know when my next billing date is.",
            "C: Can I switch to annual billing?"]),
    spec("reset-email-missing", "The customer did not receive the password reset email.", "account",
         T=["C: The reset email never arrives; I've checked spam too.",
            "C: I clicked 'forgot password' {n} times and got nothing.",
            "C: No password reset message has reached my inbox.",
            "C: I never got the email to reset my password."],
         TH=[("decoy", "C: I got your newsletter this morning, so email works, but the password reset mail just doesn't come.")],
         D=["C: I got the reset email, but the link says it has expired.",
            "C: The reset email arrived fine; the problem is that my new password isn't accepted."],
         B=["C: I didn't get the order confirmation email.",
            "C: My colleague didn't get her password reset email; mine came through."],
         E=["C: How do I change the email address on my account?",
            "C: How do I turn on two-step verification?"]),
    spec("locked-out", "Is the customer locked out of their account?", "account", crit=YN,
         T=["C: I can't log in anymore.",
            "C: My account was locked after too many wrong password attempts.",
            "C: It keeps saying 'invalid credentials' and won't let me in.",
            "C: I've been unable to access my account since {day}."],
         TH=[("decoy", "C: I know my password is right, I've written it down, but the site still won't let me sign in.")],
         D=["C: I can log in fine, I just can't find the invoices section.",
            "C: Access is no problem; my question is about privacy settings."],
         B=["C: I'm the admin. One of my team members is locked out, not me.",
            "C: I was locked out last week, but the reset worked and I'm back in."],
         E=["C: How do I change my profile picture?",
            "C: Where do I update my phone number?"]),
    spec("delete-account", {"statement": "The customer wants their account deleted.", "note": "Base the answer on the customer's own request."}, "account",
         T=["C: Please delete my account and all my data.",
            "C: Close my account permanently, I won't be using it again.",
            "C: I'd like my profile erased from your system.",
            "C: How do I get my account removed completely?"],
         TH=[("decoy", "C: This is not about the newsletter; I want the whole account deleted.")],
         D=["C: Please don't delete my account, I only want to stop the marketing emails.",
            "C: I don't want to close the account, just remove an old card from it."],
         B=["C: Can you delete my old shipping address from my profile?",
            "C: Please delete my son's account; mine should stay open.",
            "C: If this happens again, I might delete my account one day."],
         E=["C: How do I change my username?",
            "C: Can I add a second delivery address to my profile?"]),
    spec("data-copy", "Is the customer asking for a copy of their personal data?", "account", domain="privacy",
         T=["C: Under data protection law, please send me a copy of all the data you hold about me.",
            "C: I'd like to see what personal information you store on me.",
            "C: Can you export everything you have on file about me?"],
         TH=[("decoy", "C: I'm not asking you to delete anything. I only want a copy of my personal data.")],
         D=["C: I don't need a copy of my data, just delete the account.",
            "C: I'm not requesting my personal data; I only want to update my postal address."],
         B=["C: Can you send me a copy of my last invoice?",
            "A: You can request a copy of your data under Settings. | C: Thanks, but my question is about billing."],
         E=["C: How do I change my password?",
            "C: Can I share my plan with my partner?"]),
    # ------------------------------------------------------------------ agent behaviour / conversation facts
    spec("escalated", "Was the case escalated to a supervisor or a specialist team?", "any",
         T=["A: I've escalated this to our senior support team; they'll contact you within 24 hours.",
            "A: I'm passing your case to my supervisor now.",
            "S: Ticket escalated to Tier 2 ({agentfull}).",
            "A: This needs our billing specialists, so I've forwarded your case to them."],
         TH=[("decoy", "C: I don't want to be passed around. | A: I understand, but I've had to send this to our specialist team; they have the tools to fix it.")],
         D=["C: I want to speak to a supervisor. | A: There's no need to escalate, I can fix this myself right now.",
            "A: I won't escalate this yet; let's try one more step first."],
         B=["C: Please escalate this to your manager.",
            "A: If this step doesn't work, I'll escalate it tomorrow."],
         E=["A: Let me check your account details.",
            "A: Could you describe what happened in a bit more detail?"]),
    spec("apology", "Did the agent apologise to the customer?", "any",
         T=["A: I'm so sorry for the trouble this has caused.",
            "A: Please accept my apologies for the delay.",
            "A: I apologise, this should never have happened.",
            "A: Sorry about that, {cname}, that's our mistake."],
         TH=[("decoy", "C: I don't expect you to apologise. | A: I still want to say sorry; it was our error.")],
         D=["C: Sorry for the long message. | A: No need to apologise! Let me have a look.",
            "A: I understand you're frustrated, but this isn't something we're responsible for."],
         B=["C: I'm sorry to bother you again with this.",
            "C: I'd like an apology for how I was treated. | A: I'll pass your feedback to the team lead."],
         E=["A: Let me look up your details.",
            "A: Could you tell me when you first noticed this?"]),
    spec("callback", {"statement": "The agent offered to call the customer back.", "note": "A phone call made by the support side."}, "any",
         T=["A: I can give you a call back this afternoon, if that suits you.",
            "A: Would you like me to phone you tomorrow morning to go through it?",
            "A: I'll call you back within the hour on the number we have on file."],
         TH=[("decoy", "A: Chat is a bit slow for this, so how about I ring you at {time} instead?")],
         D=["A: We're unable to make outbound calls, so we'll continue here in chat.",
            "C: Can you call me? | A: I'm afraid we don't offer phone callbacks."],
         B=["C: I'll call you back later today.",
            "A: Please call our hotline on 0800 {n4}."],
         E=["A: I'll send you the details by email.",
            "A: You can find the instructions in our help centre."]),
    spec("threat-switch", "Is the customer threatening to switch to a competitor?", "subscription",
         T=["C: If this isn't fixed by {day}, I'm moving to {comp}.",
            "C: {comp} is offering me a better deal, and I'll take it unless you match it.",
            "C: One more problem like this and I'm taking my business elsewhere."],
         TH=[("decoy", "C: I really don't want to leave after all these years, but if it keeps happening I'll switch to {comp}.")],
         D=["C: Don't worry, I'm not going anywhere, I just want this sorted.",
            "C: I know {comp} is cheaper, but I'm staying with you. Just fix this, please."],
         B=["C: I switched from {comp} to you last year because their support was poor.",
            "C: My brother left for {comp} last month, and he's happier there."],
         E=["C: Could you explain my latest bill?",
            "C: Does my plan include the new features?"]),
    spec("legal-threat", "The customer threatens legal action.", "any",
         T=["C: If I don't get my money back, I'll take this to small claims court.",
            "C: My lawyer will be in touch if this isn't fixed.",
            "C: I'm prepared to sue over this."],
         TH=[("decoy", "C: I'm not someone who likes to make threats, but I will go to court over this if I have to.")],
         D=["C: I'm not going to involve lawyers, I just want a fair answer.",
            "C: I'd never sue over something like this, but I am disappointed."],
         B=["C: If this isn't fixed, I'll leave a one-star review everywhere.",
            "C: I'm a solicitor, so I need the invoice with our firm's details on it."],
         E=["C: Can you tell me the status of my case?",
            "C: What are your opening hours this weekend?"]),
    spec("agent-photo", "Did the agent ask for a photo?", "order_device",
         T=["A: Could you send me a photo of the damage?",
            "A: Please attach a picture of the label on the box.",
            "A: A quick photo of the serial number sticker would help."],
         TH=[("decoy", "A: No need to ship it back yet. Just send a photo of the problem, please.")],
         D=["A: There's no need for photos, I've approved it already.",
            "C: Should I send pictures? | A: No, that won't be necessary."],
         B=["C: I've attached some photos. | A: Thanks, received.",
            "A: Could you type out the serial number for me?"],
         E=["A: Let me check the courier's records.",
            "A: Could you tell me when this happened?"]),
    spec("customer-photo", {"statement": "The customer has attached a photo.", "note": "Look at the messages and attachments in the state."}, "order",
         T=["C: I've attached a photo of the broken part.",
            "C: Photo attached so you can see the scratch. | S: Attachment: IMG_{n4}.jpg",
            "C: See the picture I've included.",
            "C: Here's what it looks like. | S: Attachment: photo_{n4}.png (customer upload)"],
         TH=[("decoy", "C: The first upload failed, so I'm sending the photo again here. | S: Attachment: IMG_{n4}.jpg")],
         D=["C: I tried to attach a photo but the upload keeps failing.",
            "C: I forgot to attach the photo, I'll send it later."],
         B=["A: Could you attach a photo? | C: I'll take one tonight when the light is better.",
            "C: I've attached the receipt as a PDF. | S: Attachment: receipt_{n4}.pdf"],
         E=["C: The {item} came with a scratch on the side.",
            "C: The {item} doesn't close properly."]),
    spec("manager", "Does the customer ask to speak to a manager?", "any",
         T=["C: I want to speak to your manager.",
            "C: Put me through to a supervisor, please.",
            "C: Can I talk to someone more senior?"],
         TH=[("decoy", "C: No offence to you, but I'd like a manager to handle this.")],
         D=["C: There's no need to get a manager involved, I just want an answer.",
            "A: Would you like me to get my supervisor? | C: No, you're doing fine."],
         B=["A: I'll ask my manager to review your case.",
            "C: Can I speak to the technician who visited last week?"],
         E=["C: Could you tell me your opening hours?", "C: Thanks, the steps you sent earlier helped."]),
    spec("deadline", "The customer needs the item by a specific date.", "order", domain="ecommerce_orders",
         T=["C: I need it before {date}; it's a birthday present.",
            "C: It has to arrive by {day} at the latest, we're travelling after that.",
            "C: The wedding is on {date}, so the order must be here before then."],
         TH=[("decoy", "C: I don't mind how it's shipped, as long as it's here by {date}.")],
         D=["C: No rush at all, whenever it arrives is fine.",
            "C: There's no deadline, I was just curious about the delivery time."],
         B=["A: It should arrive by {date}.",
            "C: I needed it for last weekend, but that's passed now, so whenever is fine."],
         E=["C: Can I change the colour of my order?",
            "C: Does the {item} come assembled?"]),
    spec("contacted-before", {"statement": "The customer has contacted support about this same issue before.", "note": "Earlier contacts about other topics do not count."}, "any",
         T=["C: This is the third time I'm writing about this.",
            "C: I already called last week about this and was told it would be fixed.",
            "C: As I said in my previous email, the problem is still there.",
            "S: Previous contacts on this issue: 2 (chat on {date}, email on {date2})."],
         TH=[("decoy", "C: I hate repeating myself, but like I told your colleague yesterday, it still isn't sorted.")],
         D=["C: This is the first time I'm getting in touch about this.",
            "S: Previous contacts on this issue: none."],
         B=["C: I contacted you last year about a completely different question, but this is a new problem.",
            "C: I'm planning to call your hotline as well if I don't hear back by {day}."]),
    spec("gift", "Was the order a gift?", "order", domain="ecommerce_orders", crit=YN,
         T=["C: It was a present for my mum's birthday.",
            "C: I bought it as a gift for a friend.",
            "C: The {item} is for my nephew; it's his Christmas present."],
         TH=[("decoy", "C: It isn't for me, it's a gift for my sister, so I'd rather not open it.")],
         D=["C: It's for me, not a gift.",
            "C: I bought it for myself, as a treat."],
         B=["C: I'm planning to order another one as a gift for my brother; this one is mine.",
            "C: It's for my own kitchen, but I might buy one for my parents later."]),
    spec("missing-item", "Is an item missing from the delivery?", "order", domain="ecommerce_orders",
         T=["C: I ordered three things but only two were in the box.",
            "C: The charger wasn't in the package.",
            "C: The {item} was there, but the {item2} I ordered with it is missing."],
         TH=[("decoy", "C: Everything looked fine at first, but when I checked the packing slip, the {item2} wasn't there.")],
         D=["C: Everything I ordered was in the box.",
            "C: Nothing is missing, I just want to return one of the items."],
         B=["C: One of the items arrived scratched, but everything I ordered was there.",
            "C: I received the {item} in the wrong colour."],
         E=["C: The {item} arrived a day early, nice.",
            "C: Everything is fine, but the {item} is louder than I expected."]),
    spec("agent-discount", "The agent offered the customer a discount.", "any",
         T=["A: As an apology, I've added {pct}% off your next order.",
            "A: I can give you {pct}% off your next three months.",
            "A: Here's a discount code for your trouble: {code}."],
         TH=[("decoy", "A: I can't refund the shipping, but I can take {pct}% off your next purchase.")],
         D=["C: Can I have a discount? | A: I'm afraid I can't offer any discount on this.",
            "A: Discounts aren't available on the {plan} plan."],
         B=["C: I already used a {pct}% discount code at checkout.",
            "A: I'll ask my manager whether a discount is possible."],
         E=["A: Thanks for confirming your details.",
            "A: I've updated the phone number on your account."]),
    spec("error-message", "Does the customer report a specific error message?", "device",
         T=["C: It shows 'Error E{n4}: sensor fault' on the display.",
            "C: The app says 'Device offline - code {n4}' every time.",
            "C: I keep getting the message 'Unable to connect to server'.",
            "C: An error pops up: 'Firmware verification failed'."],
         TH=[("decoy", "C: Nothing else looks wrong, but the screen does say 'Error E{n4}' when it stops.")],
         D=["C: There's no error message at all, it just freezes.",
            "C: It doesn't show any error, the light simply goes off."],
         B=["A: Do you see error code E{n4} on the screen? | C: I'll have a look when I get home.",
            "C: My old {device} used to show an error, but this one just goes quiet."],
         E=["C: It happens every evening around the same time.",
            "C: It just stops responding, usually after about an hour."]),
]


# --------------------------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------------------------
def _least_used(rng, pool, uses, tag):
    m = min(uses[(tag, i)] for i in range(len(pool)))
    i = rng.choice([i for i in range(len(pool)) if uses[(tag, i)] == m])
    uses[(tag, i)] += 1
    return pool[i]


def make_gen(sp):
    uses: Counter = Counter()
    topics = TOPICS[sp["topic"]]

    def gen(rng, key, diff):
        truth = key == "yes"
        if truth:
            if diff != "easy" and sp["TH"] and rng.random() < 0.65:
                d, frag = _least_used(rng, sp["TH"], uses, "TH")
            else:
                d, frag = "easy", _least_used(rng, sp["T"], uses, "T")
        else:
            if diff == "decoy":
                d, frag = "decoy", _least_used(rng, sp["D"], uses, "D")
            elif diff == "easy" and sp["E"]:
                d, frag = "easy", _least_used(rng, sp["E"], uses, "E")
            else:
                d, frag = "boundary", _least_used(rng, sp["B"], uses, "B")
        ctx = make_ctx(rng)
        key_turns = parse(fill(frag, ctx))
        turns = []
        if rng.random() < 0.85 or key_turns[0][0] != "C" or d == "easy" and not truth:
            turns += parse(fill(_least_used(rng, topics, uses, "topic"), ctx))
        # label-neutral filler: customer sentences / background paragraphs in the first customer turn
        extra = []
        r = rng.random()
        if r < 0.45:
            extra = [fill(s, ctx) for s in rng.sample(C_FILL, rng.randint(1, 2))]
        if rng.random() < 0.25:
            extra += [fill(p, ctx) for p in rng.sample(PARAS, rng.choice([1, 1, 2, 2, 3]))]
        if extra:
            if turns:
                turns[0] = (turns[0][0], " ".join([turns[0][1]] + extra) if rng.random() < 0.6 else " ".join(extra + [turns[0][1]]))
            else:
                turns = [("C", " ".join(extra))]
        if key_turns[0][0] == "A" and rng.random() < 0.5:
            key_turns[0] = ("A", fill(rng.choice(A_FILL), ctx) + " " + key_turns[0][1])
        turns = merge(turns + key_turns)
        return render(rng, turns, ctx, chat_only=sp["chat"]), d

    return gen


def _tasks(domain):
    def fn(rng, fam):
        out = []
        for sp in SPECS:
            if sp["domain"] != domain:
                continue
            t = Task(f"cs-{sp['id']}", fam, "noul", sp["q"], sp["crit"], lambda k: k == "yes", ["yes", "no"])
            t.custom_gen = make_gen(sp)
            out.append(t)
        return out
    return fn


def _host(domain):
    f = Family(id=f"cs-host-{domain}", domain=domain, labels=[Label("yes", ["y"], ["y"]), Label("no", ["n"], ["n"])],
               choice_q=["-"], n_choice=0, items_per_task=24, extra_tasks=_tasks(domain))
    f.noul_per_label = 0
    return f


FAMILIES = [_host(d) for d in dict.fromkeys(sp["domain"] for sp in SPECS)]
