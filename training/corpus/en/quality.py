"""Ordered quality judgements: assistant helpfulness, bug-report completeness, writing formality."""
import random
from common import Family, Label, fill, person, FIRST
from rag import TOPICS

L = Label

VAGUE = ["Please check our website for more information.", "That depends on several factors.", "You may want to contact the relevant team about this.",
         "Good question! There are a few things to consider here.", "I'm not sure, it could vary."]


def gen_help(rng, key, diff):
    p, related, qa = rng.choice(TOPICS)
    i, j = rng.sample(range(len(qa)), 2)
    lvl = int(key)
    two = lvl == 2 or rng.random() < 0.5
    q = qa[i][0] + (" " + rng.choice(["Also,", "And", "Oh, and"]) + " " + qa[j][0][0].lower() + qa[j][0][1:] if two else "")
    d = "easy"
    if lvl == 0:
        other = rng.choice([t for t in TOPICS if t[0] != p])
        a = rng.choice(other[2])[1]
        if diff == "decoy":
            a = "Great question, happy to help! " + a
            d = "decoy"
    elif lvl == 1:
        a = rng.choice(VAGUE)
        d = "boundary" if diff != "easy" else "easy"
    elif lvl == 2:
        # answers only one of the two questions asked
        a = qa[rng.choice([i, j])][1]
        d = "boundary"
    else:
        a = qa[i][1] + (" " + qa[j][1] if two else "")
        if diff == "decoy":
            a = a + " Sorry if that's brief."
            d = "decoy"
    ctx = p if rng.random() < 0.5 else None
    if ctx and rng.random() < 0.5:
        ps = [p] + [t[0] for t in rng.sample([t for t in TOPICS if t[0] != p], rng.randint(1, 2))]
        rng.shuffle(ps)
        ctx = "\n\n".join(ps)
    st = {"reference": ctx, "user": q, "assistant": a} if ctx else [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    return st, d


HELP = Family(
    id="qa-help", domain="assistant_quality", ordered=True, gen=gen_help, n_score=5, n_choice=2, items_per_task=24,
    choice_q=["How helpful is the assistant's reply?", "Grade the reply's helpfulness."],
    score_q=["Rate how helpful the assistant's answer is to the user's question.", "Helpfulness of the final assistant turn",
             "How well does the reply answer what the user asked?", "Score the assistant response from useless to complete."],
    threshold_q=[(2, "Does the reply actually answer the user's question, at least partly?"), (3, "Is the reply a complete answer to the question?")],
    labels=[L("0", ["useless"], ["Off-topic: answers something else", "Does not address the question", "Irrelevant reply"]),
            L("1", ["vague"], ["Vague or evasive, no concrete answer", "Generic non-answer", "On topic but says nothing specific"]),
            L("2", ["partial"], ["Correct but answers only part of what was asked", "Answers one question, ignores another", "Incomplete answer"]),
            L("3", ["complete"], ["Directly and completely answers the question", "Full, specific answer", "Complete and on point"])],
)

BUG_ELEMS = {
    "steps": ["Steps: 1) open {screen} 2) click '{button}' 3) wait a few seconds.", "To reproduce: go to {screen}, press {button}, then refresh the page.",
              "Repro: log in, open {screen}, click {button} twice."],
    "expected_actual": ["Expected: the {thing} is saved. Actual: an error toast appears and nothing is saved.", "I expected the {thing} to download; instead the page goes blank.",
                        "Expected a confirmation email, got nothing; the {thing} shows as pending."],
    "env": ["Version {ver}, Chrome 126 on Windows 11.", "App {ver} on iPhone 14, iOS 17.5.", "Build {ver}, Firefox 128, macOS 14."],
}
BUG_OPEN = ["The {thing} is broken.", "Something is wrong with the {thing}.", "Bug with the {thing}.", "Problem: {thing} not working.", "Hey, {thing} doesn't work for me."]


def gen_bug(rng, key, diff):
    lvl = int(key)
    ex = {"screen": rng.choice(["Settings", "Reports", "the invoice list", "Profile", "the upload dialog"]), "button": rng.choice(["Save", "Export", "Submit", "Sync"]),
          "thing": rng.choice(["export", "invoice", "profile photo", "report", "payment form"])}
    elems = rng.sample(list(BUG_ELEMS), lvl)
    parts = [fill(rng, rng.choice(BUG_OPEN), ex)] + [fill(rng, rng.choice(BUG_ELEMS[e]), ex) for e in elems]
    d = "easy"
    if diff == "decoy" and lvl <= 1:
        parts.append("This is super urgent and very important, please fix ASAP!!!")
        d = "decoy"
    elif diff == "boundary":
        d = "boundary"
    body = " ".join(parts)
    if rng.random() < 0.5:
        return {"title": fill(rng, rng.choice(BUG_OPEN), ex), "reporter": rng.choice(FIRST).lower(), "body": body}, d
    return body, d


BUG = Family(
    id="qa-bugreport", domain="software_qa", ordered=True, gen=gen_bug, n_score=5, n_choice=2, items_per_task=24,
    choice_q=["How actionable is this bug report?", "Rate the bug report completeness."],
    score_q=["How complete is this bug report? Count whether it has reproduction steps, expected vs actual behaviour, and environment/version.",
             "Bug report quality: does it include steps to reproduce, expected vs actual result, and the version/environment?",
             "Score the report by how many of these it contains: repro steps; expected and actual behaviour; version and platform.",
             "Completeness of the issue report (steps, expected/actual, environment)"],
    threshold_q=[(3, "Does the bug report contain repro steps, expected vs actual behaviour AND environment details?"),
                 (1, "Does the report include at least one of: repro steps, expected vs actual behaviour, environment/version?")],
    labels=[L("0", ["none"], ["Only says something is broken", "No useful details", "None of the three elements"]),
            L("1", ["one"], ["One of the three elements", "Minimal detail", "Has one element"]),
            L("2", ["two"], ["Two of the three elements", "Mostly actionable", "Has two elements"]),
            L("3", ["all"], ["All three: steps, expected/actual, environment", "Fully actionable", "Has all three elements"])],
)


FORMAL = Family(
    id="style-formality", domain="writing_style", ordered=True, n_score=4, n_choice=2, items_per_task=22,
    choice_q=["What register is this message written in?", "Formality level of the text"],
    score_q=["How formal is the writing?", "Rate the formality of this message.", "Register of the text, from very casual to very formal"],
    threshold_q=[(2, "Is this written in a professional, formal register?")],
    labels=[
        L("0", ["very casual"], ["Slang, abbreviations, very casual", "Texting style", "Very informal"],
          easy=["yo r u coming 2nite?? lmk", "lol that meeting was sooo long omg", "cant make it, ttyl", "k thx, c u tmrw", "haha nah im good, maybe next wk"],
          decoy=[("3", "Dear Sir/Madam lol jk, it's me, u coming tonight or what??")]),
        L("1", ["casual"], ["Friendly and relaxed but full sentences", "Casual", "Informal but clear"],
          easy=["Hey {name}, thanks for yesterday! Want to grab lunch next week?", "Sounds good to me, I'll bring the slides.", "No worries, happy to help anytime.",
                "Quick heads-up: I'll be a few minutes late."]),
        L("2", ["neutral professional"], ["Polite, professional, everyday business tone", "Standard professional", "Neutral business register"],
          easy=["Hi {name}, please find the report attached. Let me know if you have any questions.", "Thank you for your message. I will review the document and reply by Friday.",
                "Could you confirm the delivery date for order {order}?", "I've updated the schedule; the new version is in the shared folder."]),
        L("3", ["very formal"], ["Highly formal, ceremonious or legalistic", "Very formal", "Official, elevated register"],
          easy=["Dear Mr {name}, I am writing to formally notify you of the termination of the agreement dated {date}, pursuant to clause 12.",
                "We respectfully request that the Committee consider the enclosed submission at its earliest convenience.",
                "The undersigned hereby acknowledges receipt of the aforementioned documents.", "It is with the utmost gratitude that we accept your kind invitation."],
          decoy=[("0", "Pursuant to our agreement (lol, as they say), the undersigned hereby requests payment of the outstanding sum within fourteen days.")]),
    ])

FAMILIES = [HELP, BUG, FORMAL]
