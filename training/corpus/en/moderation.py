"""Moderation, toxicity, policy and spam/phishing families."""
import random
from common import Family, Label, fill, person, FIRST

L = Label


def wrap_post(rng, text, key=None):
    r = rng.random()
    if r < 0.45:
        return text
    if r < 0.8:
        return {"platform": rng.choice(["forum", "comments", "marketplace_chat", "game_chat", "reviews"]),
                "author": rng.choice(["user_", "anon", "member"]) + str(rng.randint(100, 9999)),
                "reports": rng.randint(0, 4), "text": text}
    other = rng.choice(["Has anyone tried the new update?", "Match starts in 5", "What do you think about the ending?",
                        "Posting the link to the schedule here", "Morning all"])
    return [{"role": "user", "content": other}, {"role": "user", "content": text}]


POLICY = Family(
    id="mod-policy", domain="moderation", wrap=wrap_post, n_choice=8, noul_per_label=2, items_per_task=24,
    choice_q=["Which content policy, if any, does this post violate?", "Classify the post for moderation.",
              "What moderation category applies to this message?", "Label the main policy issue in this content.",
              "Which rule does this comment break?"],
    context=["Posted in the {city} community thread.", "This was a reply to another user.", "Edited 2 minutes after posting."],
    labels=[
        L("none", ["no violation", "allowed", "acceptable"], ["Nothing against the rules", "Acceptable content, no action needed",
                                                              "Fine to keep up"],
          nq=["Is this post acceptable under the community rules?", "Can this comment stay up without any moderation action?"],
          easy=["Does anyone know a good bakery near {city} station? Looking for sourdough.",
                "Great game last night, the second half was unbelievable.",
                "I disagree with your point about the budget, the numbers in the article don't support it.",
                "Selling a used bike in good condition, message me for photos.",
                "The new patch fixed my crashes, thanks devs."],
          boundary=["Your argument is honestly weak and you clearly didn't read the article. Try again.",
                    "This referee is blind, worst officiating I've seen all season.",
                    "I strongly dislike this policy and I'll be voting against the council at the next election."],
          decoy=[("violent_threat", "I'm going to kill it at the exam tomorrow, wish me luck!"),
                 ("violent_threat", "That comedian absolutely destroyed the audience last night, I was crying with laughter."),
                 ("harassment", "Someone called me an idiot in the last thread and I reported it. Let's keep this one friendly, folks."),
                 ("self_harm", "Reminder that the crisis helpline is free and open 24/7 if anyone is struggling. Look after each other."),
                 ("spam", "Not an ad, I'm not affiliated with anyone: the library's free coding workshop on {day} was genuinely good.")]),
        L("harassment", ["harassment", "bullying", "personal attack"], ["Insults, bullying or demeaning a person",
                                                                     "Targeted attacks on an individual",
                                                                     "Abusive language aimed at someone"],
          nq=["Does this message harass or insult another person?", "Is the writer bullying someone?"],
          easy=["@{name} you are a pathetic loser and everyone here laughs at you behind your back.",
                "Nobody wants you in this group, {name}. Go away and stop embarrassing yourself, you worthless clown.",
                "Look at this idiot's profile picture, what an ugly moron. Everyone go tell him.",
                "{name} is too stupid to be allowed to post. Shut up already, nobody cares about your trash opinions."],
          boundary=["Honestly {name}, every comment you make is garbage. Maybe just stop posting.",
                    "Lol imagine being as dumb as the guy who wrote this review."],
          decoy=[("none", "Thanks for sharing, {name}. Seriously though, only a complete brainless idiot would believe anything you write."),
                 ("violent_threat", "I'm not going to hurt you, {name}, I don't need to. You're just a sad little nobody and everyone knows it.")]),
        L("violent_threat", ["violent threat", "threat of violence", "violence"], ["Threatens or incites physical harm",
                                                                                  "Threats to hurt someone",
                                                                                  "Calls for violence against people"],
          nq=["Does this message threaten violence against someone?", "Is there a threat to physically harm a person?"],
          easy=["I know where you live, {name}. Next time I see you I'm going to break your legs.",
                "Someone should go to that office on {day} and make them pay with their blood.",
                "Keep talking and I'll show up at your house and hurt you. That's a promise."],
          boundary=["If I ever run into the guy who keyed my car, he'll need a hospital.",
                    "People like that deserve to get beaten up, and I'd happily do it."],
          decoy=[("none", "Just kidding about the game, it was fun. But seriously {name}, if you post my address again I will find you and make you bleed.")]),
        L("self_harm", ["self-harm", "self harm risk", "suicide risk"], ["Expresses intent or plans to hurt oneself",
                                                                         "The writer may harm themselves",
                                                                         "Signals of suicidal intent"],
          nq=["Does the writer express intent to harm themselves?", "Does this post suggest a risk of self-harm?"],
          easy=["I can't do this anymore. I've written goodbye letters and tonight I'm going to end it.",
                "Nobody would notice if I was gone. I've been planning how to hurt myself this weekend.",
                "I've stopped eating and I've been cutting again. I don't see a reason to stop."],
          boundary=["Lately I keep thinking everyone would be better off without me.",
                    "I'm so exhausted with life that sometimes I wish I could just not wake up."],
          decoy=[("none", "People keep saying 'it gets better' and joking that I'm being dramatic, but this isn't a joke: I have the pills ready for tonight.")]),
        L("spam", ["spam", "unsolicited promotion", "advertising spam"], ["Unsolicited ads, scams or repetitive promotion",
                                                                         "Commercial spam or link farming",
                                                                         "Promotional junk"],
          nq=["Is this post spam or unsolicited advertising?"],
          easy=["MAKE $5000 A WEEK FROM HOME!!! Click the link in my bio, limited spots, DM now!!!",
                "Best cheap watches 90% OFF >>> shop-deals-online.example <<< free shipping worldwide!!!",
                "Follow my page for daily crypto signals, guaranteed 300% profit, join the group now.",
                "Buy followers, likes and views cheap, fast delivery, visit our site."],
          boundary=["I made a little app that solves exactly this, link below, use code FORUM10 for a discount.",
                    "Check out my channel, I post videos about this every day! Subscribe!"],
          decoy=[("none", "Great question about budgeting! Anyway, EARN $$$ FAST: click my profile link and join 10,000 people making money from home.")]),
        L("personal_info", ["personal information", "doxxing", "private data exposure"], ["Shares someone's private data such as address or phone number",
                                                                                          "Exposes personal details without consent",
                                                                                          "Posting private info about a person"],
          nq=["Does this post expose someone's private personal information?"],
          easy=["Here's the home address of the guy who cut me off: 14 Elm Road, {city}. His phone is 555-0143. Do what you want with it.",
                "Found {name}'s real name and workplace: {company}, front desk. Personal mobile: 555-0178.",
                "This is the ID card of the seller who scammed me, full name and date of birth visible in the photo."],
          boundary=["The streamer lives on Baker Street in {city}, the blue house next to the pharmacy. Just saying.",],
          decoy=[("none", "Please don't share anyone's address here, it's against the rules. Anyway, the scammer is {fullname}, 22 Mill Lane, {city}, phone 555-0122.")]),
    ])


TOX = Family(
    id="mod-tox", domain="moderation", ordered=True, wrap=wrap_post, n_score=5, n_choice=2, items_per_task=22,
    choice_q=["How toxic is this comment?", "Pick the toxicity level of the message."],
    score_q=["Rate how toxic this comment is.", "How offensive is the language in this message?",
             "Score the toxicity of the text.", "Toxicity level of the comment"],
    threshold_q=[(2, "Is this comment toxic enough to hide from other users?"), (1, "Does the comment contain any rude or offensive language?"),
                 (3, "Is this message severely abusive?")],
    labels=[
        L("0", ["none"], ["Not toxic", "Clean, respectful language", "Polite or neutral"],
          easy=["Thanks for the detailed write-up, it helped me fix my setup.", "I think the second option is cheaper in the long run.",
                "Could the mods pin the schedule for next week?", "Welcome to the group, {name}! Glad to have you.",
                "Interesting take, though I see it differently.", "The trail was muddy but the view at the top was worth it."],
          boundary=["I don't agree at all, this plan makes no sense to me.", "Meh, the sequel was pretty boring."],
          decoy=[("3", "This track is sick, the drop absolutely kills. Insane production, killer vocals."),
                 ("2", "Damn, that was a wicked good goal. Bloody brilliant match.")]),
        L("1", ["mild"], ["Mildly rude or dismissive", "Some rudeness but no insults", "Impolite tone"],
          easy=["Ugh, read the rules before posting, it's not that hard.", "Whatever, this is a dumb thread anyway.",
                "Did you even try searching first? Come on.", "What a waste of time this video was."],
          boundary=["That's a silly question, honestly.", "Stop whining, it's just a game."]),
        L("2", ["insulting"], ["Insults or name-calling", "Clearly offensive, directed insults", "Rude and insulting"],
          easy=["You're an idiot if you believe that.", "Only a clown would write such garbage code.",
                "Shut up, you clueless moron.", "Your opinion is trash and so are you."],
          boundary=["People who post stuff like this are idiots, no offence.", "Are you stupid or just pretending?"]),
        L("3", ["severe"], ["Severe abuse, threats or hateful attacks", "Extremely abusive or threatening", "Vicious and threatening language"],
          easy=["You worthless piece of garbage, I hope you suffer. Everyone should make your life hell.",
                "I will find you and beat you senseless, you pathetic scum.",
                "Get lost and die, nobody would miss a disgusting waste of space like you."],
          boundary=["If you show up here again you'll regret it, you filthy rat."]),
    ])


# ---------------------------------------------------------------- spam / phishing (custom generator)
PHISH_OPEN = ["Dear customer,", "Dear user,", "Attention:", "Hello {name},", "Important notice:"]
PHISH_BODY = ["We detected unusual sign-in activity on your {brand} account. Verify your identity within 24 hours at {link} or your account will be suspended.",
              "Your {brand} payment could not be processed. Update your billing details immediately using this secure link: {link}",
              "Your mailbox has exceeded its storage limit. Click {link} and log in with your password to avoid losing incoming mail.",
              "You have a pending refund of {amount} from {brand}. To receive it, confirm your card number and CVV at {link}.",
              "Your package could not be delivered due to an unpaid customs fee of $1.99. Pay now at {link} to reschedule delivery.",
              "HR has shared a document with you: 'Salary adjustments {year}'. Sign in with your corporate credentials to view: {link}",
              "This is the IT department. Your password expires today. Keep your current password by entering it here: {link}"]
SPAM_BODY = ["Huge summer sale! Up to 70% off everything in store, this weekend only. Shop now at {link}.",
             "Congratulations, you've been selected for an exclusive offer on premium vitamins. Reply YES to get your free sample.",
             "Lose 10 kg in 10 days with our miracle tea! Thousands of happy customers. Order at {link}.",
             "Boost your website traffic with our SEO package, guaranteed first page on Google. Reply for prices.",
             "Hot singles in your area are waiting! Sign up free today.",
             "Last chance: buy 2 get 1 free on all printer cartridges. Unsubscribe at the bottom of this email.",
             "We can build your mobile app for only $499. Reply to this email to book a call with our team."]
LEGIT_BODY = ["Your order {order} has shipped and should arrive by {day}. You can track it from your account page.",
              "Hi {name}, attaching the slides from today's meeting. Let me know if anything is missing.",
              "Reminder: your dentist appointment is on {date} at 10:30. Reply C to confirm or call us to reschedule.",
              "Your monthly statement for {month} is now available. Log in through our app or website as usual to view it. We will never ask for your password by email.",
              "Hi team, the office will be closed on {day} for maintenance. Please work from home.",
              "Thanks for registering for the webinar on {date}. The joining details will be sent one day before.",
              "{name}, can you review the draft budget before Thursday? I left comments in the shared document."]
BRANDS = ["PayFlow", "Amazonia Shop", "NetStream", "Tessel Bank", "CloudDrive", "Parcelly", "MailBox Pro"]
BAD_LINKS = ["http://secure-verify-account.example-login.ru/auth", "http://paypa1-support.example.top/update",
             "https://bit.example/x7Gh2", "http://{brand_l}-security-check.example.xyz", "http://198.51.100.23/login.php"]
SPAM_LINKS = ["www.mega-deals.example", "shop-now.example/sale", "best-offers.example.biz"]


def gen_spam(rng, key, diff):
    brand = rng.choice(BRANDS)
    ex = {"brand": brand, "year": "2026", "brand_l": brand.lower().replace(" ", "")}
    d = "easy"
    if key == "phishing":
        ex["link"] = fill(rng, rng.choice(BAD_LINKS), ex)
        body = fill(rng, rng.choice(PHISH_BODY), ex)
        if diff == "decoy":
            body = f"This is NOT spam and not a marketing email. {body} Thank you for being a valued customer."
            d = "decoy"
        elif diff == "boundary":
            body = body.replace("within 24 hours", "soon").replace("immediately", "when convenient")
            d = "boundary"
        sender = rng.choice([f"security@{brand.lower().replace(' ', '')}-alerts.example.net", f"no-reply@{ex['brand_l']}.support-team.example.co",
                             "it-helpdesk@corp-mail.example.info"])
        opener = fill(rng, rng.choice(PHISH_OPEN))
    elif key == "spam":
        ex["link"] = rng.choice(SPAM_LINKS)
        body = fill(rng, rng.choice(SPAM_BODY), ex)
        if diff == "decoy":
            body = body + " We will never ask for your password or bank details."
            d = "decoy"
        sender = rng.choice(["deals@promo-mail.example", "offers@newsletter.example.biz", "marketing@bestprice.example"])
        opener = rng.choice(["Hi there!", "Dear friend,", "Special offer inside!"])
    else:
        body = fill(rng, rng.choice(LEGIT_BODY), ex)
        if diff == "decoy":
            body = body + " " + rng.choice(["Note: this email is urgent only in the sense that the deadline is Friday.",
                                              "If you did not expect this message, you can ignore it; no action or login is needed."])
            d = "decoy"
        sender = rng.choice([f"{rng.choice(FIRST).lower()}@{rng.choice(['northwind.example', 'harborfinch.example'])}",
                             "orders@shop.example.com", "noreply@clinic.example.org"])
        opener = "" if body.startswith(("Hi ", "Hello")) or body.split(",")[0] in FIRST else fill(rng, rng.choice(["Hi {name},", "Hello,", "Dear {name},", ""]))
    text = (opener + " " + body).strip()
    r = rng.random()
    if r < 0.5:
        return {"from": sender, "subject": rng.choice(["Action required", "Your account", "Update", "Notice", "Hello", "Information"]),
                "body": text}, d
    return f"From: {sender}\n\n{text}", d


SPAM = Family(
    id="mod-spam", domain="spam_phishing", gen=gen_spam, n_choice=7, noul_per_label=2, items_per_task=24,
    choice_q=["Classify this email.", "Is this email phishing, spam or legitimate?", "What kind of message is this?",
              "Sort the incoming email into the right bucket.", "Triage this message for the mail filter."],
    labels=[
        L("phishing", ["phishing", "credential theft", "scam"], ["Tries to steal credentials, card data or money by impersonation",
                                                                "Fraudulent message asking for secrets via a suspicious link"],
          nq=["Is this a phishing attempt?", "Is the message trying to trick the reader into giving up credentials or payment details?"]),
        L("spam", ["spam", "marketing", "bulk promotion"], ["Unsolicited bulk advertising, not trying to steal credentials",
                                                            "Unwanted promotional email"],
          nq=["Is this unsolicited promotional spam?", "Is this a bulk marketing email?"]),
        L("legit", ["legitimate", "safe", "ham"], ["A normal, expected message", "Genuine personal or transactional email"],
          nq=["Is this a legitimate email that is safe to deliver?", "Should this message go to the inbox as normal mail?"]),
    ])

FAMILIES = [POLICY, TOX, SPAM]
