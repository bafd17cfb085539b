"""Ordered (score) families: graded levels across many domains, 3, 4 and 5 levels.

Every family here is ``ordered=True`` and produces score views (one level description per level,
counted from 0 = low) plus threshold nouls ("at least level k?").  Bank families hold per-level
easy / boundary / decoy texts; custom generators compose states from parts (passages + answers,
pain scores, budget updates, agent reports).  All content is invented for this corpus.
"""
import json
import re

from common import Family, Label, bank_state, fill, person, wrap_message, FIRST, LAST, CITY


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def lvl(key, name, descs, easy=(), boundary=(), decoy=(), details=()):
    """One level of an ordered family. ``decoy`` = [(surface-cue level key, text), ...]."""
    return Label(key, [name], list(descs), easy=list(easy), boundary=list(boundary),
                 decoy=list(decoy), details=list(details))


def ordered(fid, domain, labels, score_q, threshold_q, n_score=4, items=22, **kw):
    """An ordered family: build_tasks makes its score views and threshold nouls, and every task draws
    its states through ``task_source``, which caps each level's share of a score task.

    Without the cap, gold levels are sampled independently per item, which leaves 22-item tasks
    visibly skewed.
    """
    quota = -(-items // len(labels))          # ceil(items / levels) per level
    return Family(id=fid, domain=domain, labels=labels, choice_q=["-"], ordered=True, n_choice=0, n_score=n_score,
                  score_q=score_q, threshold_q=threshold_q, items_per_task=items,
                  task_source=lambda t: task_source(t.family, quota if t.qtype == "score" else None), **kw)


def task_source(fam, quota=None):
    """Per-task state source: bank content (each template once per task) or the family generator,
    rejecting repeated or near-repeated states and levels that already hold ``quota`` items."""
    used_tpl, used_state, shingles, count = set(), set(), [], {}

    def gen(rng, key, diff):
        if quota and count.get(key, 0) >= quota:
            return None
        if fam.gen:
            state, d = fam.gen(rng, key, diff)
        else:
            state, d = bank_state(rng, fam, key, diff, None, used_tpl, max_fillers=3)
            if state is None:
                return None
        sig = json.dumps(state, sort_keys=True)
        sh = trigrams(sig)
        if sig in used_state or any(len(sh & o) >= 0.7 * len(sh | o) for o in shingles):
            return None
        used_state.add(sig)
        shingles.append(sh)
        count[key] = count.get(key, 0) + 1
        return state, d
    return gen


def trigrams(text):
    ws = re.findall(r"[a-z0-9']+", text.lower())
    return {tuple(ws[i:i + 3]) for i in range(max(1, len(ws) - 2))}


def scale_q(question, labels, idx=0):
    """Object instructions with the scale spelled out: {"question": ..., "scale": "0 = ..., k = ..."}."""
    parts = [f"{i} = {l.descs[idx % len(l.descs)].split(':')[0].split(',')[0].lower()}" for i, l in enumerate(labels)]
    return {"question": question, "scale": ", ".join(parts)}


def record_wrap(field, meta, p_plain=0.4):
    """Plain text with probability p_plain, else a JSON record {meta..., field: text}."""
    def wrap(rng, text, key=None):
        if rng.random() < p_plain:
            return text
        rec = {k: (v(rng) if callable(v) else v) for k, v in meta.items()}
        rec[field] = text
        return rec
    return wrap


def rid(prefix, lo=1000, hi=99999):
    return lambda rng: f"{prefix}{rng.randint(lo, hi)}"


def handle(rng):
    return f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}"


# --------------------------------------------------------------------------------------------
# 1. Bug report urgency (4 levels)
# --------------------------------------------------------------------------------------------
BUG_LEVELS = [
    lvl("0", "cosmetic", ["Cosmetic: no functional impact, fix whenever convenient", "Trivial visual or wording issue only",
                          "Purely cosmetic, nothing is broken"],
        easy=["The 'Save' button on the settings page sits two pixels lower than the 'Cancel' button.",
              "Typo in the footer: 'Copyrigth'.",
              "The tooltip on the export icon uses a slightly different grey than the rest of the toolbar.",
              "On the About page, the team photo looks a little blurry on large monitors.",
              "The loading spinner in {product} turns anticlockwise while the design spec shows clockwise.",
              "The empty-inbox illustration is not quite centred on very wide screens.",
              "The word is spelled 'canceled' in one dialog and 'cancelled' in another.",
              "Sidebar icons are slightly misaligned with their labels in dark mode.",
              "The success toast says 'Item saved!!' with two exclamation marks.",
              "The help page still shows last year's screenshot of the dashboard header."],
        boundary=["The date picker shows month names in lowercase ('march') while the rest of the UI capitalises them; picking dates works fine.",
                  "On the PDF invoice the logo is slightly stretched. All amounts and details are correct.",
                  "The progress bar jumps from 90% straight to 'done' without showing 100%; the upload itself completes normally.",
                  "Column headers in the report table wrap onto two lines at 1280px width; all data is visible and correct.",
                  "The 'new' badge is still shown on a feature released months ago; the feature itself works as normal.",
                  "The hover colour on the secondary button is missing; clicking the button works."],
        decoy=[("3", "URGENT!!! The footer colour on the pricing page is slightly off from the brand palette. Nothing else is affected."),
               ("3", "Production emergency? Not really: the favicon looks a bit pixelated on retina screens. Everything works."),
               ("2", "This ruins the experience for me: the blog heading font is one size smaller than on the homepage. Everything functions fine.")]),
    lvl("1", "minor", ["Minor: something misbehaves but there is an easy workaround or the feature is rarely used",
                       "Low impact, a workaround exists", "Small functional glitch; work continues normally"],
        easy=["Sorting contacts by 'last edited' ignores the time of day; sorting by name works and is what most people use.",
              "The Ctrl+K shortcut doesn't open search, but clicking the search icon does.",
              "Exporting to CSV drops trailing zeros in prices (4.5 instead of 4.50); the values are still correct.",
              "Drag-and-drop doesn't work in the upload dialog; the 'Browse' button uploads fine.",
              "The 'remember me' checkbox is ignored, so I have to log in again every day.",
              "Notification emails arrive about ten minutes late.",
              "The rarely used 'print label' option prints on two pages instead of one.",
              "Filters on the orders page reset when I navigate away, so I re-apply them each time.",
              "Avatar upload fails for PNG files over 5 MB; smaller files and JPEGs work.",
              "The 'copy link' button does nothing in Safari; copying the URL from the address bar works."],
        boundary=["Bulk edit fails when more than 500 rows are selected; editing in batches of 500 works.",
                  "Search doesn't find customers by phone number, only by name and email; agents can still look them up by email.",
                  "The mobile app crashes when the screen is rotated on the checkout page; in portrait mode checkout works.",
                  "Scheduled reports aren't sent on the 31st of the month; running them manually works.",
                  "Calendar sync duplicates events for the handful of customers still on the old desktop client; web and mobile are fine.",
                  "The password reset link opens a blank page in the in-app browser; pasting it into a normal browser works."],
        decoy=[("3", "Everything is broken!! Well, only the spreadsheet import, and only for files with semicolons as separators; comma-separated files import fine."),
               ("2", "Flagging as high priority because it annoys me, but honestly it's small: the 'Undo' link in the toast disappears after two seconds instead of five. Undo from the menu still works.")]),
    lvl("2", "major", ["Major: a key feature is broken for many users with no good workaround; fix within days",
                       "Important functionality broken, no workaround", "Serious problem for a large group of users, but not an outage"],
        easy=["Since this morning's release, about a third of customers can't attach files to tickets, and there is no other way to send files.",
              "Downloading invoice PDFs fails for all customers on the {plan} plan, and they need them for their accounting this week.",
              "The reports module shows last month's totals instead of current figures for every account; managers rely on it daily.",
              "Team admins can't add new members to their workspace since {ver}; the invite button errors out every time.",
              "Since the daylight-saving change, the shared calendar shows every meeting one hour late for all customers in Europe.",
              "Push notifications stopped working for all Android users after the last update; iOS is fine.",
              "Dashboard charts don't load for any customer in the EU region; other regions are fine.",
              "Customers on the Android app can't see their order history since Tuesday, and there is nowhere else in the app to find it.",
              "New users signing up with Google get stuck on an error page; that's roughly 40% of our sign-ups.",
              "Recurring bookings stopped being created for every clinic using the scheduler; staff have to phone patients to rebook."],
        boundary=["Login fails for roughly 15% of users, those with an apostrophe in their email address; everyone else signs in normally.",
                  "Order confirmation emails haven't been sent to anyone since last night. Orders themselves go through and show in the account.",
                  "The data export times out for every account with more than 10,000 records, which is most of our business customers.",
                  "Checkout works, but the discount field rejects every valid code, so this week's promotion can't be used.",
                  "Our largest customer's team of 200 can't open the scheduling page since the update; other customers are unaffected.",
                  "Payments go through, but receipts show the wrong tax amount for customers in two regions."],
        decoy=[("0", "Maybe just a visual thing? The 'Pay now' button is greyed out and can't be clicked for anyone using Firefox, about a quarter of our shoppers."),
               ("1", "Minor issue probably: since yesterday none of our clinic customers can print appointment letters, which they must hand out, and there's no other way to produce them.")]),
    lvl("3", "critical", ["Critical: outage, data loss, or broken payments or security for everyone; drop everything",
                          "Emergency, fix immediately", "Production-wide failure or data at risk"],
        easy=["The whole site returns a 500 error for every user since the deploy ten minutes ago.",
              "The nightly cleanup job deleted customer records that were not marked for deletion, and it runs again tonight.",
              "All card payments fail at checkout for every customer; nothing can be bought.",
              "Any logged-in user can open another customer's invoices by changing the number in the URL.",
              "The mobile app crashes on launch for every user after version {ver}.",
              "Saving a document in {product} overwrites it with an empty file; users are losing their work.",
              "Nobody can log in: the sign-in page loops back to itself for all accounts.",
              "The API is down for all clients and the status page still says operational.",
              "Customer passwords are being written in plain text to the public log viewer.",
              "The sync job has been duplicating every bank transaction in all customers' ledgers since midnight."],
        boundary=["Card payments fail for every customer; only the rarely used bank transfer option still works.",
                  "Everyone who edits notes in offline mode loses those edits when they reconnect.",
                  "The app opens, but no screen after the login screen loads, for anyone. Technically the servers are up.",
                  "Only one tenant is affected so far, but their customer list is visible to users of another tenant.",
                  "Checkout works, but every new order since 9:00 has been charged twice.",
                  "The backup job has failed silently for nine days and the primary database disk is now reporting errors."],
        decoy=[("0", "Probably just cosmetic: the page after login is blank white for everybody, so nobody can reach their dashboard."),
               ("1", "Small thing, there's a workaround: customers can email us their orders, because checkout has been failing for all of them since noon.")]),
]

BUG_URGENCY = ordered(
    "lv-bug-urgency", "software_qa", BUG_LEVELS, n_score=4,
    score_q=["How urgent is this bug report?", "Rate how quickly this bug needs to be fixed.",
             scale_q("Assign an urgency level to the reported bug.", BUG_LEVELS),
             "Urgency of the defect described in the report", "Triage this bug: how much does it matter right now?"],
    threshold_q=[(2, "Does this bug need to be fixed within days rather than whenever convenient?")],
    wrap=record_wrap("description", {"issue": rid("BUG-"), "reporter": handle, "status": "new"}),
    context=["Reported by {name} from the support team.", "Found while testing release {ver}.",
             "Ticket created through the in-app feedback form.", "Seen on Chrome and Firefox."],
)


# --------------------------------------------------------------------------------------------
# 2. Customer frustration (4 levels)
# --------------------------------------------------------------------------------------------
FRUST_LEVELS = [
    lvl("0", "calm", ["Calm: neutral or positive, no sign of annoyance", "Relaxed and friendly", "Not frustrated at all"],
        easy=["Could you tell me how to change the email address on my account?",
              "Thanks for the quick reply yesterday. One more question: can I add a second user?",
              "My package arrived today, I'm just checking how to register the warranty.",
              "No problem at all with the delay, I'd just like to know the new delivery date.",
              "I'd like to upgrade to the {plan} plan. What do I need to do?",
              "The app is great! Is there a way to export my notes?",
              "I noticed a small typo in your newsletter, thought you'd like to know. Have a nice day!",
              "Could you resend the invoice for order {order}? I seem to have deleted it.",
              "Happy to wait, I'm just confirming you received my return.",
              "I'm setting up {product} and wondered which cable to use for the second monitor."],
        boundary=["The delivery is a day later than estimated, but that's fine, I'm not in a hurry. When should I expect it?",
                  "I had to enter my address twice because the form cleared, no big deal. Is my order placed?",
                  "Step 3 in the manual was a bit unclear, but I figured it out. Just letting you know.",
                  "The first reset link didn't work, the second one did. All good now, thanks.",
                  "I was on hold for a few minutes, no worries. Can you check my refund status?",
                  "You sent a different colour than I ordered, but I actually like it. Can I keep it?"],
        decoy=[("3", "Haha, I'm FURIOUS... just kidding! Everything arrived perfectly. Do you sell spare filters?"),
               ("2", "Not frustrated at all, just curious: why does the app ask me to update so often?")]),
    lvl("1", "mildly annoyed", ["Mildly annoyed: a little irritated or disappointed but calm", "Slight annoyance",
                                "Minor irritation, still patient"],
        easy=["A bit annoying that I have to log in again every time I open the app. Is there a fix?",
              "This is the second time the delivery window was moved. Slightly inconvenient. Could you confirm the new date?",
              "I'm a little disappointed the discount code didn't apply. Can you fix the price?",
              "Hmm, the invoice shows the wrong company name. Not ideal, please correct it.",
              "Kind of irritating that the export drops the last column. Can you look into it?",
              "I'm a bit irritated that the refund still hasn't arrived. Could you check what's going on?",
              "Bit of a hassle: the charger wasn't in the box. Can you send one?",
              "The app logged me out while I was writing and I lost a paragraph. Mildly frustrating. Is there an autosave?",
              "It's a little annoying that the size guide was off. I'll need to exchange the shoes.",
              "Not thrilled that the price went up without notice, but I'd like to understand the new plan."],
        boundary=["I asked about this once before and didn't hear back. Could someone please check my return?",
                  "Slightly annoyed that the instructions were missing a step. Otherwise everything's fine.",
                  "The order was late and the box was dented. A bit disappointing, though the product itself is OK.",
                  "Sigh, the password rules changed again. What are the requirements now?",
                  "I'm a bit frustrated that I waited 20 minutes on the phone, but the agent was helpful in the end.",
                  "Somewhat inconvenient: the meeting link in the invite doesn't work. Can you send a new one?"],
        decoy=[("3", "I'm not going to cancel or anything, I'm just a little annoyed that the tracking link doesn't open. Can you resend it?")]),
    lvl("2", "frustrated", ["Clearly frustrated: exasperated, losing patience, repeated problem, but not hostile",
                            "Frustrated and fed up", "Strong frustration without threats or hostility"],
        easy=["This is the third time I'm contacting you about the same missing refund. I'm really fed up with repeating myself.",
              "I've spent two hours trying to connect this printer and nothing in your guide works. I'm at the end of my patience.",
              "Why does every update break something? I'm so tired of fixing my settings after each release.",
              "I was promised a call back yesterday and nobody called. Again. This is really frustrating.",
              "I've restarted the router five times as you told me and the internet keeps dropping. I can't work like this.",
              "I'm getting really frustrated. Every time I chat with you I get a different answer about my delivery.",
              "Three weeks and still no replacement. I've been patient, but this is getting ridiculous.",
              "I keep getting charged for the plan I downgraded from. I've explained it twice and it's still wrong.",
              "Honestly, this is exhausting. I've uploaded the same document four times and it still says 'missing'.",
              "I'm really annoyed. The technician didn't show up and I took the day off for it."],
        boundary=["I'm very frustrated and I need this fixed today, please. I've been without internet since Monday.",
                  "I don't want to be rude, but this is the fourth email about the same issue and I'm losing patience.",
                  "This is really disappointing. I paid for express shipping, it's a week late, and nobody has updated me.",
                  "I'm trying to stay calm, but I've been transferred between departments three times in one call.",
                  "Look, I've done everything your support article says, twice. What else am I supposed to do?",
                  "Not happy at all. The replacement you sent has the same fault as the first one."],
        decoy=[("0", "Thanks, I guess. That's the third 'thank you for your patience' email this week and the heater still doesn't work. I'm really fed up.")]),
    lvl("3", "angry", ["Angry: hostile or furious, threatening to leave, escalate, complain or go public",
                       "Furious, with threats or insults", "Extreme anger"],
        easy=["This is absolutely UNACCEPTABLE. Cancel my account today and refund every cent, or I'm reporting you to the consumer authority.",
              "I am FURIOUS. You charged me three times and nobody answers. I want a manager NOW.",
              "Worst service I have ever experienced. I'm done with {company}, and I'm telling everyone I know to stay away.",
              "You people are useless. Six weeks, seven calls, zero help. I'm contacting my lawyer.",
              "ENOUGH. If this isn't fixed tonight I'm disputing every charge with my bank and reviewing you everywhere I can.",
              "I'm beyond angry. You cut off my service by mistake during my exams and now you want ME to wait another week?!",
              "Do not send me another scripted apology. I am livid and I want this escalated to someone who can act.",
              "This is a joke. A total joke. I'm cancelling everything and never want to hear from your company again.",
              "I have had it with you. Fix it now or I'm going public with every email you've sent me.",
              "Are you kidding me?! You lost my package AGAIN and now it's my fault? I'm done with you."],
        boundary=["I'm extremely angry. I'll give you until Friday, then I cancel and file a formal complaint.",
                  "I've been polite so far, but now I'm seriously angry: escalate this to a manager today or I take my business elsewhere.",
                  "Frankly I'm furious about how this was handled, and I demand that a formal complaint be opened.",
                  "I don't usually lose my temper, but this is outrageous. Refund me or I go to the ombudsman.",
                  "Your agent hung up on me. I'm livid and I'm closing all three of our company accounts.",
                  "This has gone way beyond frustrating. I'm angry, and I'm leaving you the moment my contract allows."],
        decoy=[("0", "Thank you SO much for your 'help'. Third refund promise, still no refund. I'm furious and filing a chargeback today.")]),
]

FRUSTRATION = ordered(
    "lv-frustration", "customer_support", FRUST_LEVELS, n_score=4,
    score_q=["Rate the customer's frustration.", "How frustrated is the customer?",
             scale_q("How upset is the person writing to support?", FRUST_LEVELS),
             "Customer emotion: from calm to angry"],
    threshold_q=[(2, "Is the customer clearly frustrated or worse?")],
    wrap=wrap_message,
    context=["My account number is {nn}{n}4{n}.", "I'm writing from my phone.", "Order {order}."],
)


# --------------------------------------------------------------------------------------------
# 3. Production risk of a code change (4 levels)
# --------------------------------------------------------------------------------------------
RISK_LEVELS = [
    lvl("0", "no risk", ["None: docs, comments or tests only, nothing that runs in production changes",
                         "No runtime effect at all", "Cannot affect production"],
        easy=["Fixes typos in README.md and the contributing guide.",
              "Adds docstrings to the pricing helper functions. No code changes.",
              "Adds three unit tests for the date parser; no production code touched.",
              "Updates the CHANGELOG for release {ver}.",
              "Renames a local variable inside a test fixture.",
              "Rewraps comments in the billing module to 100 characters.",
              "Adds an architecture diagram to the docs folder.",
              "Deletes an unused screenshot from docs/images.",
              "Corrects an example in the API documentation that used the wrong field name.",
              "Adds a section on local setup to the developer handbook."],
        boundary=["Changes only the test data factory so generated test users get realistic names. Test-only code.",
                  "Edits comments in the payment service to explain the retry logic; the logic itself is unchanged.",
                  "Moves the load-test scripts into a new folder; they are never deployed.",
                  "Adds a lint rule to the local editor config only; CI and builds are unaffected.",
                  "Updates the wording of the database failover runbook; no config or code changes.",
                  "Adds a skipped placeholder test for the auth module, marked TODO."],
        decoy=[("3", "Touches the auth service, but only to fix spelling mistakes in its comments; no code lines change."),
               ("2", "Big diff, 2,000 lines, but all of it is generated documentation pages; nothing that is deployed changes.")]),
    lvl("1", "low", ["Low: small, isolated change on a non-critical path, easy to revert",
                     "Minor, well-contained code change", "Small risk limited to one minor feature"],
        easy=["Changes the text of the 'empty inbox' message shown in the app.",
              "Adds an optional query parameter to an internal admin report; default behaviour unchanged.",
              "Fixes an off-by-one in the pagination label ('showing 1-10 of 50'), with a test.",
              "Adds a feature-flagged tooltip; the flag is off by default.",
              "Raises the timeout of the internal nightly report job from 5 to 10 minutes.",
              "Changes the colour of the secondary button on the settings page.",
              "Adds request-duration logging to one internal endpoint.",
              "Sorts the country dropdown alphabetically, with tests.",
              "Fixes the alignment of the footer links on the marketing pages.",
              "Fixes a null check so users without an avatar see their initials."],
        boundary=["Rewords the password reset email template; same link and variables, tested in staging.",
                  "Bumps the patch version of the markdown library used only on the help pages.",
                  "Adds a nullable column to the 'office_locations' table, which has 12 rows; nothing reads it yet.",
                  "Changes the cache lifetime of the public FAQ page from 5 to 10 minutes.",
                  "Refactors one private function in the CSV export module; existing tests confirm identical output.",
                  "Adds a new admin-only endpoint behind a flag that is disabled in production."],
        decoy=[("3", "Titled 'payments refactor', but it only renames a label on the internal payments admin screen from 'Txn' to 'Transaction'.")]),
    lvl("2", "medium", ["Medium: changes shared code or a key service's behaviour; could break several features",
                        "Moderate risk with a wider blast radius", "Touches shared logic or service configuration"],
        easy=["Refactors the shared date-formatting utility used by reports, emails and exports.",
              "Upgrades the HTTP client library by one major version in the order service.",
              "Changes the retry policy for all outgoing webhook calls from 3 to 5 attempts with backoff.",
              "Rewrites the ranking function for the main product listing page.",
              "Changes the default page size of every list API endpoint from 50 to 100.",
              "Replaces the home-grown caching layer in the catalogue service with a library.",
              "Changes how time zones are handled in the shared scheduling module.",
              "Makes the email queue worker send messages in batches.",
              "Updates validation rules for the address form used in sign-up and account settings.",
              "Changes the connection pool size of the notifications service."],
        boundary=["Only six lines, but they change the shared rounding helper used by every report and dashboard chart.",
                  "Upgrades the logging library in all services; minor version, but its changelog mentions a new default log format.",
                  "Moves image resizing from the upload request into a background job.",
                  "Changes the evaluation order in the shared feature-flag client; flags for several features are affected.",
                  "Adds a required field to the internal events schema consumed by three analytics jobs.",
                  "Changes the default sort of the main product listing from 'relevance' to 'newest'."],
        decoy=[("0", "Described as a 'tiny cleanup', but it rewrites the shared date parser used by reports, exports and reminders.")]),
    lvl("3", "high", ["High: core paths such as auth, payments, data migrations or global infrastructure; hard to roll back",
                      "High risk of an outage or data problem", "Risky change to critical or irreversible systems"],
        easy=["Migration drops and recreates the 'orders' table (80 million rows) to change the primary key type.",
              "Rewrites the password hashing and session validation logic in the auth service.",
              "Charges cards at order time instead of at shipping in the payment capture flow.",
              "Updates the global load balancer configuration for all production traffic.",
              "Deletes legacy columns still read by the billing job; no backup is taken.",
              "Upgrades the primary database to a new major version in place.",
              "Changes the permission check that decides which users can see other tenants' data.",
              "Rotates the encryption keys for stored customer documents with a one-way re-encryption job.",
              "Changes the DNS records for the main domain and the API domain at once.",
              "Replaces the tax calculation engine for invoices in all countries."],
        boundary=["Only two lines, but they change the token expiry check in the login middleware that runs on every request.",
                  "Backfill script that updates the status of 12 million subscription rows; it can't be reversed once it runs.",
                  "Moves production secrets from environment variables to a new secret store for all services in one deploy.",
                  "Adds a NOT NULL constraint to a column of the 40-million-row 'payments' table.",
                  "A one-line change to the currency conversion rate used when charging customers.",
                  "Replaces the firewall rules of the production network with a new allow-list."],
        decoy=[("1", "Small PR, three lines, but they disable the signature check on incoming payment webhooks."),
               ("0", "'Just a config tweak': it sets the production database connection limit to 5 for all services.")]),
]

CHANGE_RISK = ordered(
    "lv-change-risk", "code_review", RISK_LEVELS, n_score=4,
    score_q=["How much does this code change risk breaking production?", "Rate the deployment risk of this pull request.",
             scale_q("Estimate the production risk of the change.", RISK_LEVELS),
             "Risk level of merging and deploying this change"],
    threshold_q=[(2, "Could this change plausibly break more than one feature in production?")],
    wrap=record_wrap("summary", {"pull_request": rid("#", 100, 9999), "author": handle, "target_branch": "main"}),
    context=["CI is green.", "Reviewed by {name}.", "Part of the {month} cleanup sprint."],
)


# --------------------------------------------------------------------------------------------
# 4. Actionability of product feedback (4 levels)
# --------------------------------------------------------------------------------------------
FB_LEVELS = [
    lvl("0", "not actionable", ["Generic opinion only: no area, issue or suggestion", "Pure praise or complaint, nothing to act on",
                                "Not actionable at all"],
        easy=["Love it!", "Great app, keep it up.", "Honestly not a fan.", "Meh.", "Terrible experience overall.",
              "Five stars, works for me.", "It's fine I guess.", "Best purchase this year!!", "Could be better.", "Not what I hoped for."],
        boundary=["Everything about it feels a bit off to me.", "The whole thing needs work.",
                  "I like most of it, some bits not so much.", "Good product, but the experience could be smoother.",
                  "Nice team, nice product, nothing to add.", "Not great, not terrible, just average overall."],
        decoy=[("3", "Please, please, please fix it! You really need to do something about all of it. Thanks!")]),
    lvl("1", "vague", ["Names an area of the product but stays vague about what is wrong", "Area identified, issue unclear",
                       "Vague pointer to part of the product"],
        easy=["The checkout feels clunky.", "The settings page is confusing.", "Search could be better.",
              "I don't like the new dashboard.", "Notifications are annoying.", "Onboarding was kind of overwhelming.",
              "Reports are hard to use.", "The mobile app feels slow sometimes.", "Your pricing page is confusing.",
              "The calendar view needs some love."],
        boundary=["The export feature doesn't really do what I need.", "Something about the invoice layout bugs me.",
                  "The filters on the orders page aren't intuitive.", "Sign-up took longer than it should.",
                  "The new menu is harder to navigate than before.", "The chat widget gets in the way sometimes."],
        decoy=[("3", "Suggestion: make the reports better."), ("2", "I found a specific problem: the dashboard just doesn't feel right.")]),
    lvl("2", "specific", ["Describes a specific, concrete issue but proposes no change", "Specific problem, no suggestion",
                          "Concrete issue without a proposal"],
        easy=["On the checkout page, pressing Enter in the discount field does nothing; I have to click 'Apply'.",
              "The help centre search returns nothing for 'refund', even though there's a refund article.",
              "In the monthly report, the totals row leaves out the last day of the month.",
              "The settings page has two toggles both called 'Notifications' and I can't tell which does what.",
              "When I rotate my phone on the map screen, the map zooms all the way out.",
              "The password rules only appear after I submit the form and get an error.",
              "In the mobile app, the 'Save' button is hidden under the keyboard when I edit a contact.",
              "The date picker starts weeks on Sunday while our other tools start on Monday, and I keep picking the wrong day.",
              "The CSV export puts the currency symbol in the amount column, so spreadsheets read it as text.",
              "Booking confirmation emails show the time in UTC rather than my local time."],
        boundary=["The calendar export skips recurring events. I don't know what the right fix is, but it's a problem.",
                  "When I upload more than 20 photos, the progress bar freezes at 50% even though the upload finishes.",
                  "The tooltip on the 'Archive' icon says 'Delete', which made me think I'd lose my data.",
                  "It takes five taps to reach invoice history from the home screen of the app.",
                  "The 'Next' button on onboarding step 3 is grey even when it's enabled, so I thought I couldn't continue.",
                  "The weekly summary email arrives on Sunday at 2 a.m., and by Monday it's buried in my inbox."],
        decoy=[("0", "Love the app overall! One thing: the 'Undo' link disappears about one second after I delete something, before I can click it.")]),
    lvl("3", "actionable", ["Specific issue plus a concrete suggested change", "Fully actionable: what, where and what to do",
                            "Specific and with a clear proposal"],
        easy=["Pressing Enter in the discount field does nothing; please make Enter apply the code like other forms do.",
              "Help centre search misses 'refund'. Could you add synonyms so 'refund', 'money back' and 'return' all find the refund article?",
              "The monthly report totals skip the last day of the month; please include everything up to 23:59 on the last day.",
              "Please show the password rules under the field before I type, not only after an error.",
              "Make the 'Save' button sticky at the top when editing contacts on mobile, so the keyboard doesn't hide it.",
              "Add a setting to start the week on Monday in the date picker; right now it's always Sunday and I pick wrong days.",
              "Export amounts as plain numbers with the currency in its own column, so spreadsheets can add them up.",
              "Booking confirmations show UTC. Please use the time zone from my profile instead.",
              "The two 'Notifications' toggles are confusing: rename them 'Email notifications' and 'Push notifications'.",
              "The map zooms out when the phone rotates; please keep the current zoom level and centre."],
        boundary=["The 'Next' button on onboarding step 3 looks disabled because it's grey; use the same blue as the other primary buttons.",
                  "Reaching invoice history takes five taps; please add a shortcut to it on the home screen.",
                  "The progress bar freezes at 50% for big uploads. Showing a count like '12 of 30 uploaded' would fix that for me.",
                  "Recurring events are missing from the calendar export; please include them as repeating entries in the .ics file.",
                  "The 'Archive' tooltip says 'Delete' - change it to 'Archive'.",
                  "The weekly summary arrives Sunday at 2 a.m.; please send it Monday at 8 a.m. local time instead."],
        decoy=[("0", "Great app, five stars! Only request: add a 'Duplicate' button next to 'Edit' on the invoice page, because I recreate the same invoice every month.")]),
]

FEEDBACK = ordered(
    "lv-feedback-action", "product_feedback", FB_LEVELS, n_score=4,
    score_q=["How specific and actionable is this feedback comment?", "Rate how actionable the feedback is for the product team.",
             scale_q("Could the product team act on this comment? Grade it.", FB_LEVELS),
             "Actionability of the user comment"],
    threshold_q=[(2, "Does the comment describe a specific, concrete issue?")],
    wrap=record_wrap("comment", {"feedback_id": rid("FB-"), "source": lambda r: r.choice(["in-app survey", "app store review", "email", "NPS follow-up"])}),
)


# --------------------------------------------------------------------------------------------
# 5. Data sensitivity of a document (4 levels)
# --------------------------------------------------------------------------------------------
SENS_LEVELS = [
    lvl("0", "public", ["Public: already published or meant for anyone outside the company", "Safe to share externally",
                        "Public information"],
        easy=["Press release: {company} opens a new office in {city} next month.",
              "Our opening hours are 9:00 to 17:30, Monday to Friday.",
              "The product manual for {product}, version {ver}, as posted on our website.",
              "Job ad: we're hiring a junior accountant in {city}. Apply on our careers page.",
              "The menu for the open-day lunch, printed on the public event flyer.",
              "Our support phone number and email address as listed on the contact page.",
              "The terms of service currently shown on the website.",
              "Social media post: free workshop on {date} in {city}, everyone welcome.",
              "The annual sustainability report, available for download on our site.",
              "The store locator list of shop addresses from our website."],
        boundary=["Slides from the talk our engineer gave at a public conference, already posted on the event site.",
                  "An internal copy of the price list, identical to the one on the website.",
                  "Email to all staff forwarding the press release that went out this morning.",
                  "The list of office addresses that appears in the website footer.",
                  "FAQ answers the support team copied word for word from the public help centre.",
                  "The public holiday dates for next year, as published by the government."],
        decoy=[("3", "Marked 'TOP SECRET' as a joke by the marketing team: it's the slogan of the campaign that launched publicly last week.")]),
    lvl("1", "internal", ["Internal: routine company information for staff only, little harm if leaked",
                          "Internal use, low impact", "Everyday internal matters"],
        easy=["Team lunch is moved to Thursday; please update your calendars.",
              "Wiki page: how to book a meeting room in the {city} office.",
              "IT will update laptops on Friday evening; save your work before you leave.",
              "Minutes of the weekly design stand-up: two mockups reviewed, next review on {day}.",
              "Reminder: the kitchen fridge will be emptied on Wednesday.",
              "Seating plan for the third floor.",
              "Guide for new starters on how to request a second monitor.",
              "Internal newsletter: this month's birthdays and the winner of the photo contest.",
              "List of internal chat channels and what each one is for.",
              "Schedule of the training sessions on the new expense tool."],
        boundary=["Org chart of the marketing department with names and job titles.",
                  "Draft agenda for next week's all-hands: office move update, Q&A, welcome of new joiners.",
                  "Internal phone extensions of the finance team.",
                  "Retrospective notes: deploys took too long, so we'll try smaller releases.",
                  "Holiday rota for the support team in {month}.",
                  "How-to: which expense category to pick for train tickets and taxis."],
        decoy=[("2", "Labelled 'Confidential' out of habit, but it's just the reminder that the car park is closed on {day}.")]),
    lvl("2", "confidential", ["Confidential: business-sensitive (finances, contracts, plans, salaries, customer lists), need-to-know only",
                              "Sensitive business information", "Confidential company data"],
        easy=["Q3 revenue by region, before the public earnings release.",
              "Salary bands for all engineering levels.",
              "Draft supplier contract with negotiated prices and penalty clauses.",
              "Plan to close the {city} office next year; staff have not been told yet.",
              "Full customer list with company names, contract values and renewal dates.",
              "Acquisition target shortlist prepared for the board.",
              "Performance review notes for a team member.",
              "Next year's pricing strategy, including planned discounts for key accounts.",
              "Unreleased product roadmap for the next 18 months.",
              "Internal audit findings about weaknesses in the purchasing process."],
        boundary=["Names and work emails of our 40 largest customers' contacts, with their contract values.",
                  "Marketing budget spreadsheet with planned spend per campaign for next quarter.",
                  "Leadership meeting minutes discussing which teams will merge in the reorganisation.",
                  "Letter to an employee about a disciplinary warning for repeated lateness.",
                  "Our proposed price for a public tender, due before next week's deadline.",
                  "Draft redundancy plan listing roles that may be cut, not yet shared with employees."],
        decoy=[("1", "Looks like a routine team update, but the second paragraph lists each engineer's exact salary and next year's raise.")]),
    lvl("3", "restricted", ["Restricted: secrets or highly sensitive personal data (passwords, keys, card numbers, health records, ID numbers)",
                            "Highest sensitivity: credentials or special personal data", "Restricted data"],
        easy=["The production database admin password and the host it connects to.",
              "An export of customers' full card numbers with expiry dates and security codes.",
              "Employees' medical leave records, including diagnoses.",
              "The private signing key of the company's TLS certificate.",
              "Scanned passports and national ID numbers of new hires.",
              "Live API secret keys for the payment provider.",
              "Counselling notes from the employee assistance programme.",
              "Login credentials for the company's treasury bank account.",
              "Employees' social security numbers for payroll.",
              "The root SSH private key for all production servers."],
        boundary=["A config file that looks routine but contains the live database connection string with username and password.",
                  "A spreadsheet of staff sick days that also has a column with each person's medical condition.",
                  "A support ticket in which a customer pasted their full card number and security code.",
                  "A screenshot of the password manager vault showing several shared team passwords.",
                  "One employee's passport scan attached to a travel booking email.",
                  "A backup of the HR system including employees' health insurance claims."],
        decoy=[("0", "Titled 'Public FAQ draft', but the attachment is actually the admin password list for our cloud accounts."),
               ("1", "A routine onboarding checklist, except that it includes the new hire's national ID number and bank login.")]),
]

SENSITIVITY = ordered(
    "lv-sensitivity", "privacy", SENS_LEVELS, n_score=4,
    score_q=["What classification level does this document need?", "How sensitive is the content described?",
             scale_q("Classify the document's sensitivity.", SENS_LEVELS, 1),
             "Data sensitivity level of the item"],
    threshold_q=[(2, "Should access to this be limited to people who need to know?")],
    wrap=record_wrap("content", {"doc_id": rid("DOC-"), "owner": person, "location": lambda r: r.choice(["shared drive", "email attachment", "wiki", "ticket"])}),
)


# --------------------------------------------------------------------------------------------
# 6. Security finding severity (5 levels)
# --------------------------------------------------------------------------------------------
SEC_LEVELS = [
    lvl("0", "informational", ["Informational: best-practice note, no exploitable weakness", "No real risk, hygiene note only",
                               "Informational"],
        easy=["Recommendation: add a security.txt file so researchers know how to reach the security team.",
              "The cookie banner can be dismissed with the Escape key; noted during testing, no security impact.",
              "The build pipeline uses a linter one minor release behind; no known vulnerabilities in it.",
              "Documentation suggestion: the API guide should mention that tokens expire after one hour.",
              "Tested the login form for SQL injection; nothing found. Noted for completeness.",
              "Recommend enabling dependency update notifications; all dependencies are currently up to date.",
              "The error page shows a generic message and a request ID, no internal details. Informational.",
              "Phishing awareness training was last run eight months ago; consider a refresher. No incident observed.",
              "Log retention is 90 days; the policy should state this. No weakness identified.",
              "The static marketing site has no login, serves only public content, and TLS is configured correctly."],
        boundary=["The scan only noted that the TLS certificate expires in 80 days; auto-renewal is already enabled.",
                  "Autocomplete is enabled on the newsletter email field, which holds no sensitive data.",
                  "The password reset page says 'If this email exists, we've sent a link', so no enumeration is possible; just confirming.",
                  "An older TLS 1.2 cipher suite, still considered secure, is enabled alongside the modern ones.",
                  "Source maps are published for the public marketing site, whose code has no secrets.",
                  "The Content Security Policy lists a domain we no longer use; we still own that domain."],
        decoy=[("4", "Scanner title: 'Remote Code Execution Possible'. Manual check: false positive, the endpoint does not exist and nothing is exploitable.")]),
    lvl("1", "low", ["Low: hard to exploit or very limited impact, e.g. minor information disclosure", "Minor weakness, little impact",
                     "Low severity"],
        easy=["API error responses reveal the exact framework version; it has no known vulnerabilities.",
              "The login page reveals whether an email is registered, but rate limiting makes bulk checks very slow.",
              "X-Frame-Options is missing on help centre pages, which contain no forms or actions.",
              "Internal hostnames appear in an HTML comment on the public login page.",
              "'Remember me' sessions never expire; abusing this needs physical access to the user's unlocked device.",
              "The forgot-password endpoint has no rate limit, so someone could flood a user with reset emails, without gaining access.",
              "The internet-facing staging site, which holds no real data, shows stack traces with file paths on its 404 page.",
              "TLS 1.0 is still enabled on a legacy download server that only serves public files.",
              "Self-XSS in the profile bio preview: users can only run script in their own browser.",
              "TLS 1.1 is still accepted on the main site alongside TLS 1.2 and 1.3."],
        boundary=["An open redirect exists on the logout URL, limited to our own subdomains.",
                  "The login endpoint has no rate limit, but accounts lock after five failed attempts.",
                  "Password reset tokens stay valid for 48 hours instead of one; they are single-use and sent only to the account email.",
                  "The mobile app stores the user's display name and theme preference unencrypted on the device.",
                  "CSRF is possible on the 'change language' setting.",
                  "SVG avatars are allowed but served from a separate sandboxed domain; the worst outcome is a defaced avatar."],
        decoy=[("4", "The scanner rated this 'critical', but it's only that a header discloses the server software version, which has no known vulnerabilities.")]),
    lvl("2", "medium", ["Medium: exploitable only with user interaction, a logged-in attacker or special conditions, and limited impact",
                        "Moderate risk", "Medium severity"],
        easy=["Stored XSS in comments; it only fires for users who open that thread and click 'expand'.",
              "CSRF on the 'notification email' form lets an attacker redirect a victim's notifications (not password resets) if the victim visits a malicious page while logged in.",
              "The session cookie lacks the Secure flag, so it could leak over plain HTTP on a network where an attacker intercepts traffic.",
              "An outdated script library with a known XSS flaw loads on the settings page; exploiting it requires the victim to click a crafted link.",
              "Clickjacking is possible on the 'delete project' page; a user would have to be tricked into several clicks.",
              "Stored XSS in product reviews fires only when a logged-in shopper opens the 'show all reviews' panel; cookies are HttpOnly.",
              "A logged-in user can trigger heavy exports repeatedly and slow the reporting service for others; no data is exposed.",
              "Reflected XSS on the search page runs when a logged-in user opens a crafted link.",
              "HTML uploads are served from the main domain, so a logged-in user could host a fake page there and lure others to it.",
              "Two-factor authentication can be switched off without re-entering the password, by someone already inside a logged-in session."],
        boundary=["Stored XSS in team chat runs when a teammate views the message, but cookies are HttpOnly and admin actions need re-authentication.",
                  "CSRF on the profile form lets an attacker change a victim's display name and bio if they visit a malicious page; email and password can't be changed this way.",
                  "A regular employee account can view its own team's login audit log, which should be admin-only.",
                  "The API keeps accepting access tokens for ten minutes after they expire.",
                  "A logged-in user can upload files of up to 5 GB despite the 50 MB limit, slowly filling the shared disk.",
                  "A regular member can invite new people to their own workspace, bypassing the admin-approval setting."],
        decoy=[("0", "Filed as 'informational' by mistake: it's a stored XSS in forum signatures that runs only when another logged-in user hovers over the author's name.")]),
    lvl("3", "high", ["High: a logged-in attacker can read or change other users' data or take over accounts",
                      "Serious weakness with significant impact", "High severity"],
        easy=["By changing the account ID in an API request, a logged-in user can read any other customer's invoices and addresses.",
              "SQL injection in the admin reports filter, reachable by logged-in staff accounts, allows reading the whole customer table.",
              "A regular user can make themselves workspace admin by adding 'role=admin' to the profile update request.",
              "Stored XSS in the support inbox: a customer can submit a ticket that steals the session of the agent who opens it.",
              "Any logged-in user can download other users' uploaded ID documents by guessing sequential file numbers.",
              "Authenticated users can read other tenants' support tickets through the search API.",
              "For any logged-in caller, the mobile API returns the phone, address and birth date of any requested username.",
              "A logged-in user can cancel or edit other customers' orders by changing the order ID in the request.",
              "The employee portal, reachable only over the office VPN, accepts tokens with the algorithm set to 'none', so any employee can impersonate another.",
              "Any authenticated user can reset another user's two-factor settings through an unprotected API endpoint."],
        boundary=["A logged-in user can read private messages of other users in the same workspace by changing a message ID.",
                  "SQL injection in a search box that only logged-in partner accounts can reach exposes other partners' order data.",
                  "Any free-trial account can open the parent organisation's admin dashboard, including billing details of all members.",
                  "Stored XSS on profile pages runs for every logged-in visitor, and session cookies aren't HttpOnly, so visitors' accounts can be hijacked.",
                  "A staff-only endpoint lets any logged-in employee export all customer password hashes, stored as unsalted MD5.",
                  "A permission bug lets any logged-in customer see the shipping addresses of everyone's orders from the last hour."],
        decoy=[("1", "Looks like a low-severity info leak at first, but the debug endpoint returns other users' email addresses and phone numbers to any logged-in caller.")]),
    lvl("4", "critical", ["Critical: anyone on the internet, without credentials, can compromise systems or expose mass data",
                          "Full compromise possible without logging in", "Critical severity"],
        easy=["Unauthenticated remote code execution in the image processing endpoint: anyone on the internet can run commands on the server.",
              "The production database is reachable from the internet with no password.",
              "Cloud root access keys were committed to a public repository and are still valid.",
              "A storage bucket holding all customer passports and contracts is publicly readable without any login.",
              "Sending the header 'X-Admin: true' gives any anonymous visitor full admin access.",
              "SQL injection in the public login form lets anyone dump the whole user database without an account.",
              "Default credentials (admin/admin) work on the internet-facing console of the payment server.",
              "A public API endpoint returns every customer's full card number to anyone who calls it.",
              "A deserialization flaw in the public API lets unauthenticated attackers take full control of the application servers.",
              "The backup server allows anonymous FTP from the internet and holds full nightly database dumps."],
        boundary=["The internet-facing build server has no login and lets anyone start jobs that have access to production secrets.",
                  "An unauthenticated GraphQL query returns the names, emails and password hashes of all users.",
                  "Anyone can change the password of any account by calling the reset API with just the username.",
                  "A debug console on the public web server lets any visitor run code; it was found via a search engine.",
                  "Our VPN appliance is unpatched against a publicly known pre-authentication exploit and is reachable from the internet.",
                  "Signed-out visitors can download the full customer export from a predictable public URL."],
        decoy=[("1", "The reporter marked this 'low', but the unauthenticated upload endpoint lets anyone on the internet run commands on the web server.")]),
]

SEC_SEVERITY = ordered(
    "lv-sec-severity", "security", SEC_LEVELS, n_score=5,
    score_q=["How severe is this security finding?", "Rate the severity of the vulnerability described in the report.",
             scale_q("Assign a severity to the pentest finding.", SEC_LEVELS, 2),
             "Severity of the finding, from informational to critical",
             {"question": "What severity should this finding get?", "note": "Judge by who can exploit it and what they gain."}],
    threshold_q=[(3, "Is the finding at least high severity?")],
    wrap=record_wrap("finding", {"id": rid("FND-", 100, 999), "source": lambda r: r.choice(["pentest", "bug bounty", "internal review", "scanner triage"]),
                                 "reported_by": person}),
)


# --------------------------------------------------------------------------------------------
# 7. Stance on a proposal (5 levels)
# --------------------------------------------------------------------------------------------
PROPOSALS = ["Move the weekly team meeting to Monday mornings", "Switch to a four-day work week for a trial period",
             "Replace the office coffee machine with a bean-to-cup model", "Adopt a single project tracking tool for all teams",
             "Close the {city} office on Fridays", "Introduce a dress code for client meetings",
             "Publish salary ranges in all job ads", "Start a monthly internal hackathon", "Ban meetings on Wednesday afternoons",
             "Raise the membership fee of the residents' association by 10%", "Turn the car park into a bike shelter and garden",
             "Extend the library opening hours to 22:00"]

STANCE_LEVELS = [
    lvl("0", "strongly oppose", ["Strongly opposed", "Firmly against, rejects it completely", "Strong opposition"],
        easy=["Absolutely not. This would be a disaster and I will vote against it.",
              "I'm completely against this. Please drop it entirely.",
              "Strongly opposed. There is no version of this I could accept.",
              "This is a terrible idea and I'll fight it at every meeting.",
              "No, no and no. Scrap the whole proposal.",
              "I could not disagree more. This must not go ahead under any circumstances.",
              "Hard no from me. It's the worst change we've discussed this year.",
              "I object in the strongest possible terms.",
              "Please don't do this. It's wrong in every way and I'll oppose it to the end.",
              "Vehemently against. If this passes I'll push to have it reversed."],
        boundary=["I'm firmly against this, and no amount of tweaking would change my mind.",
                  "I really don't like this at all; I'll vote no and encourage others to do the same.",
                  "This isn't a small disagreement: I fundamentally oppose the whole idea.",
                  "I can't support any part of this proposal, not one bit.",
                  "This goes against everything we agreed on; I'm strongly opposed.",
                  "My answer is a firm no, and I'd like my objection formally recorded."],
        decoy=[("4", "'Great idea', some said. Well, I completely disagree: this would be a disaster and I'll vote against it.")]),
    lvl("1", "oppose", ["Opposed, but not strongly", "Leans against it", "Mild opposition"],
        easy=["I don't think this is a good idea. I'd vote no.",
              "I'm against it, mainly because of the cost.",
              "Not convinced. I'd prefer we don't go ahead.",
              "I'd rather we didn't do this; the current setup works well enough.",
              "I lean against this. The downsides seem bigger than the benefits.",
              "I'm not in favour, though I understand why some people want it.",
              "Probably a no from me; it adds work without a clear benefit.",
              "I disagree with the proposal as written.",
              "I'd vote against, but I won't make a fuss if it passes.",
              "My view: we shouldn't do this right now."],
        boundary=["I'm against it, but I could maybe be persuaded with better numbers.",
                  "I don't support it. It's not terrible, just not worth it.",
                  "On balance, no. I see a couple of good points but more bad ones.",
                  "I'd say no for now; ask me again next year.",
                  "I'm mildly against it.",
                  "Not for me. If most people want it, fine, but my vote is no."],
        decoy=[("3", "I like the people who wrote this and the effort is great, but I don't agree with it and I'd vote no.")]),
    lvl("2", "neutral", ["Neutral or undecided", "Neither for nor against", "No clear position"],
        easy=["I don't have a strong opinion either way.",
              "I can see arguments on both sides; I'm undecided.",
              "No preference. Whatever the group decides is fine with me.",
              "I'm neutral on this. It doesn't really affect me.",
              "Honestly, I could go either way.",
              "I'll abstain; I don't know enough to judge.",
              "Neither for nor against. I'd like to hear more before deciding.",
              "It doesn't matter much to me either way.",
              "I'm on the fence.",
              "Some good points, some concerns, and for me they balance out."],
        boundary=["I'm not against it, but I'm not for it either until I see the details.",
                  "There's something to like and something to worry about; I'm truly undecided.",
                  "I wouldn't block it and I wouldn't push for it.",
                  "Fine by me if it happens, fine by me if it doesn't.",
                  "Undecided. The cost worries me about as much as the benefits appeal to me.",
                  "I can't say yet. I'll decide after seeing the trial results."],
        decoy=[("0", "Some people call this a terrible idea and others love it; personally I have no opinion either way.")]),
    lvl("3", "support", ["Supports it, but not strongly", "Leans in favour", "Mild support"],
        easy=["I think this is a good idea. I'd vote yes.",
              "I'm in favour, as long as we review it after six months.",
              "Sounds sensible to me; I support it.",
              "Yes, I'd go ahead with this.",
              "I like it. A few details to sort out, but I'm for it.",
              "Generally supportive. It should save us some time.",
              "I'm for it; it's a reasonable step.",
              "I'd back this, though it's not a top priority for me.",
              "On balance, yes. The benefits outweigh the costs.",
              "Count me as a yes."],
        boundary=["I support it, with some reservations about the timeline.",
                  "I'm mildly in favour.",
                  "Yes, but I wouldn't be upset if it were postponed.",
                  "I'd vote for it. I'm not thrilled, but it's better than what we have.",
                  "Probably yes; it looks like an improvement.",
                  "I lean in favour, provided the budget stays as planned."],
        decoy=[("1", "I was against it at first, but after reading the details I now support it.")]),
    lvl("4", "strongly support", ["Strongly in favour", "Enthusiastic, full support", "Strong support"],
        easy=["Absolutely yes! This is exactly what we need, let's do it right away.",
              "I fully and enthusiastically support this.",
              "Best proposal I've seen in years. 100% in favour.",
              "Yes, yes, yes. Please approve this as soon as possible.",
              "I'm wholeheartedly behind this and happy to help make it happen.",
              "Strongly in favour. We should have done this long ago.",
              "This is brilliant. You have my full support.",
              "An enthusiastic yes from me and my whole team.",
              "I couldn't agree more. Let's go ahead immediately.",
              "Totally support it. I'll volunteer to lead the rollout."],
        boundary=["I strongly support this, even if the details need polishing.",
                  "A firm yes, and I'd argue for it in front of the board.",
                  "I'm very much in favour; it's one of the best ideas on the list.",
                  "Full support. No reservations at all.",
                  "I'm really keen on this. It would make a big difference for us.",
                  "Definitely yes; I'll be pushing hard for it to be approved."],
        decoy=[("0", "I know some people oppose this strongly, but I couldn't be more in favour. Absolutely yes.")]),
]


def wrap_stance(rng, text, key=None):
    prop = fill(rng, rng.choice(PROPOSALS))
    r = rng.random()
    if r < 0.4:
        return {"proposal": prop, "respondent": person(rng), "comment": text}
    if r < 0.7:
        return f"Proposal: {prop}.\nComment from {rng.choice(FIRST)}: {text}"
    return [{"role": "user", "content": f"What do you think about the idea to {prop[0].lower() + prop[1:]}?"},
            {"role": "assistant", "content": text}] if rng.random() < 0.3 else \
        [{"role": "assistant", "content": f"Poll: {prop}. What's your view?"}, {"role": "user", "content": text}]


STANCE = ordered(
    "lv-stance", "sentiment_tone", STANCE_LEVELS, n_score=4,
    score_q=["How strongly does the writer support the proposal?", "Rate the commenter's stance on the proposal.",
             scale_q("Where does this comment stand on the proposal?", STANCE_LEVELS),
             "Level of agreement with the proposal, from strong opposition to strong support",
             "Score the respondent's position on the idea."],
    threshold_q=[(3, "Is the writer in favour of the proposal?")],
    wrap=wrap_stance,
)


# --------------------------------------------------------------------------------------------
# 8. Politeness of a workplace message (3 levels)
# --------------------------------------------------------------------------------------------
POLITE_LEVELS = [
    lvl("0", "rude", ["Rude: demanding, dismissive, sarcastic or insulting", "Impolite and disrespectful", "Rude"],
        easy=["Send me the report. Now. I shouldn't have to ask twice.",
              "Did you even read my email? Obviously not.",
              "This is sloppy work. Redo it.",
              "Stop wasting my time with these questions.",
              "Whatever. Just fix it, that's literally your job.",
              "Are you incapable of meeting a deadline?",
              "I don't care about your excuses. Get it done.",
              "Who approved this mess?",
              "Seriously? An intern could do better.",
              "Don't bother replying unless you have the numbers."],
        boundary=["Fix this today. No excuses.",
                  "You were supposed to handle this. So handle it.",
                  "I've told you three times already. Read your messages.",
                  "Not good enough. Try again.",
                  "Stop cc'ing me on this stuff.",
                  "Another late invoice? Figure it out."],
        decoy=[("2", "Thanks SO much for yet another late report. Truly impressive how you never meet a deadline."),
               ("2", "Please, for once, read the instructions before wasting everyone's time.")]),
    lvl("1", "neutral", ["Neutral: matter-of-fact, no courtesy words and nothing rude", "Plain and businesslike", "Neutral tone"],
        easy=["The report is due Friday.", "Meeting moved to 3 pm.", "Send the updated file when it's ready.",
              "The invoice total is wrong; it should be {amount}.", "I'll be out on {day}.", "Attached is the draft.",
              "Need the figures for {month} by Thursday.", "The server restart is scheduled for 22:00.",
              "Your access has been granted.", "Room B is booked for the workshop."],
        boundary=["Noted. I'll look at it tomorrow.", "OK, changed the date to the 14th.", "Can you send the slides.",
                  "I disagree with the proposed deadline; two weeks is more realistic.", "Received. Will forward to finance.",
                  "Reminder: timesheets are due at 5 pm today."],
        decoy=[("0", "URGENT: the meeting has moved to 3 pm.")]),
    lvl("2", "polite", ["Polite: courteous phrasing such as thanks, please, apologies or softening", "Courteous and considerate",
                        "Polite tone"],
        easy=["Hi {name}, thank you so much for your help yesterday. Could you please send the report when you have a moment?",
              "Thanks for your patience! I really appreciate you waiting while we sorted this out.",
              "Would you mind taking a look at the draft? No rush, and thank you in advance.",
              "I'm sorry for the confusion earlier, and thank you for pointing it out so kindly.",
              "Could I kindly ask you to update the figures before Friday? Many thanks!",
              "Great work on the presentation, {name}. Thank you for all the effort you put in.",
              "If it's not too much trouble, could you resend the invoice? Thanks very much.",
              "I hope you had a lovely weekend! Whenever it suits you, could we chat about the schedule?",
              "Thank you for flagging this. You're absolutely right, and I appreciate the heads-up.",
              "Please let me know if there's anything I can do to help. Thanks again!"],
        boundary=["Thanks, got it. I'll take a look.", "Could you please send the slides? Thanks.",
                  "Thanks for the update. Let's discuss tomorrow.", "Appreciate the quick turnaround.",
                  "Sorry for the late reply. The file is attached.", "Please let me know if the new date works for you. Thank you."],
        decoy=[("0", "I know this is the third time something has gone wrong, and that's frustrating, but thank you for sticking with it. Could you please try once more?")]),
]

POLITENESS = ordered(
    "lv-politeness", "writing_style", POLITE_LEVELS, n_score=4,
    score_q=["How polite is this message?", "Rate the politeness of the message.",
             scale_q("Judge the tone of this workplace message.", POLITE_LEVELS, 1), "Politeness level of the sender"],
    threshold_q=[(1, "Is the message free of rudeness?")],
    wrap=record_wrap("message", {"channel": lambda r: r.choice(["email", "team chat", "ticket comment"]), "from": handle, "to": handle}, 0.5),
)


# --------------------------------------------------------------------------------------------
# 9. Spam likelihood of a message (3 levels)
# --------------------------------------------------------------------------------------------
SPAM_LEVELS = [
    lvl("0", "legitimate", ["Legitimate: personal, work or transactional message the recipient expects or asked for",
                            "Not spam", "Wanted, expected message"],
        easy=["Hi {name}, attached are the minutes from Tuesday's meeting. Let me know if I missed anything.",
              "Your order {order} has shipped and should arrive on {day}.",
              "Reminder: your dentist appointment is tomorrow at 10:30.",
              "Your password was changed. If this wasn't you, contact support from inside the app.",
              "Hey, are we still on for dinner on Friday?",
              "Your statement for {month} is available in online banking.",
              "Invoice from {company} for {amount}, as agreed in our contract.",
              "The book you reserved at the library is ready for pickup.",
              "Thanks for registering for the webinar; the link will follow one hour before it starts.",
              "Mum's flight lands at 6, can you pick her up?"],
        boundary=["Thanks for subscribing! Here is the 10% welcome code you asked for when you signed up.",
                  "As requested on the phone, here's the quote for the office chairs we discussed.",
                  "Your loyalty points balance at {company} is {nn}0; points expire at the end of {month}.",
                  "You asked us to tell you when the blue jacket is back in stock. It is!",
                  "Reminder from your gym: your membership renews on {date}.",
                  "This week's issue of the recipe newsletter you subscribed to, with a note from the editor."],
        decoy=[("2", "URGENT: your password was reset. This is the automatic notice sent after you changed it in Settings; no action needed."),
               ("2", "Not a scam, promise! It's Aunt Rosa. My phone died so I'm writing from the hotel computer. See you at the wedding.")]),
    lvl("1", "unsolicited promotion", ["Unsolicited bulk or cold marketing, unwanted but not deceptive", "Probably spam: honest but unrequested advertising",
                                       "Cold promotional message"],
        easy=["Boost your team's productivity with our new project tool! Book a free demo today. (You're getting this because your company is listed online.)",
              "Hi, I came across your company online and wanted to offer our SEO services. Interested in a call?",
              "Summer sale at a shop you've never used: 30% off all garden furniture this weekend.",
              "Dear business owner, we provide affordable bookkeeping. Reply to learn more.",
              "Looking for office cleaning in {city}? We offer competitive rates.",
              "We found your address in a trade directory: introducing our new range of ergonomic chairs!",
              "We're a web design agency and we'd love to redesign your website. Here's our portfolio.",
              "Would your team be interested in a 15-minute call about cutting cloud costs?",
              "Trade-show discount on printing services, reply for a price list.",
              "Hi there, we found your profile online! Our app helps freelancers track time. Try it free for 14 days."],
        boundary=["Following up on my previous email you didn't answer: still interested in our bookkeeping service?",
                  "We noticed you visited our website once. Here's a discount on our accounting software.",
                  "Limited time! Tickets to a conference you've never heard of are 40% off until Friday. Reply STOP to opt out.",
                  "I'm contacting companies in {city} about our logistics software. Would a demo help?",
                  "Hello, we sell refurbished laptops at good prices. Unsubscribe link below.",
                  "Congratulations on your new office! We offer plant-care subscriptions for workplaces."],
        decoy=[("2", "FREE!!! Well, a free 30-minute consultation with our accounting firm, no strings attached. We're a registered firm in {city}.")]),
    lvl("2", "scam", ["Deceptive spam or scam: fake prizes, phishing, false claims, requests for money or credentials",
                      "Certainly spam, deceptive", "Fraudulent or deceptive message"],
        easy=["CONGRATULATIONS!!! You've won a $1,000 gift card. Click here and enter your card details to claim.",
              "Your account will be suspended in 24 hours. Verify your password at this link immediately.",
              "I am a prince and need your help moving $4.5 million; you will receive 30%.",
              "Earn $5,000 a week from home, no experience needed! Just send the $49 registration fee.",
              "Your parcel is held at customs. Pay a {amount} release fee through this link or it will be destroyed.",
              "Dear customer, we detected unusual activity. Reply with your PIN to unlock your bank account.",
              "Miracle pill melts 10 kg in a week!!! Doctors hate this trick.",
              "You have an unclaimed tax refund. Enter your social security number to receive it.",
              "Hot crypto tip: invest now and double your money in 48 hours, guaranteed!",
              "Your mailbox is full. Log in here to keep receiving emails: mail-upgrade-secure.example"],
        boundary=["Our certified supplements cure anxiety, diabetes and back pain. 70% off today only.",
                  "Final notice: your listing in a business directory you never joined will be deleted unless you pay {amount} today.",
                  "Hi, it's your CEO. I'm stuck in a meeting; buy five gift cards and send me the codes.",
                  "Your free trial of a service you never signed up for has ended. Call this number to stop the {amount} charge.",
                  "You've been selected for a free holiday! Just pay the small booking fee to confirm.",
                  "Guaranteed first-page search ranking in 24 hours or your money back!!! Pay now, offer ends tonight."],
        decoy=[("0", "Hi {name}, hope you're well! As discussed... well, we haven't actually spoken, but you've won a cash prize. Send your bank login to release it.")]),
]

SPAM = ordered(
    "lv-spam", "spam_phishing", SPAM_LEVELS, n_score=4,
    score_q=["How likely is this message to be spam?", "Rate the spam level of the message.",
             scale_q("Spam assessment for this inbox message", SPAM_LEVELS, 1), "How spammy is this email?"],
    threshold_q=[(1, "Is this message unwanted spam of any kind?")],
    wrap=record_wrap("body", {"from": lambda r: f"{handle(r)}@{r.choice(['mail.test', 'example.net', 'inbox.example'])}",
                              "received": lambda r: f"{r.randint(1, 28):02d}/{r.randint(1, 12):02d} {r.randint(6, 23):02d}:{r.choice(['05', '17', '42', '58'])}"}),
)


# --------------------------------------------------------------------------------------------
# 10. Confidence expressed by the writer (3 levels)
# --------------------------------------------------------------------------------------------
CONF_LEVELS = [
    lvl("0", "uncertain", ["Uncertain: heavily hedged, guessing or admits not knowing", "Low confidence", "Tentative guess"],
        easy=["I'm really not sure, but maybe the shipment arrives Tuesday? I could be completely wrong.",
              "It might possibly be a network issue, though honestly I have no idea.",
              "Perhaps sales will go up next quarter, or perhaps not; hard to say.",
              "I guess the meeting could be on Thursday, but don't quote me on that.",
              "No clue, really. It may or may not be the new update causing it.",
              "Maybe the figures are from 2022? I'd have to check, I'm not certain at all.",
              "It's just a wild guess, but the leak might be coming from the roof.",
              "I can't say; possibly the printer driver, possibly something else entirely.",
              "I doubt it, but the client might accept the offer. Who knows.",
              "I'm unsure whether the store opens on holidays. It could go either way."],
        boundary=["My hunch is it's the cache, but I really haven't verified anything.",
                  "I suspect the delay is on the supplier's side, though I have very little to go on.",
                  "It could be the battery. Or the charger. I honestly can't tell.",
                  "Possibly the numbers are right; I haven't had time to check any of them.",
                  "I'd guess around 200 people will come, but that's really just a guess.",
                  "Maybe the contract allows it? I'm not a lawyer and I'm not sure."],
        decoy=[("2", "I'm certain of only one thing: I have no idea whether the shipment will arrive on time.")]),
    lvl("1", "fairly confident", ["Fairly confident: believes it, with some qualification or 'probably'", "Moderate confidence",
                                  "Confident but hedged"],
        easy=["I'm fairly confident the shipment will arrive Tuesday, unless customs holds it.",
              "It's most likely a network issue; the logs point that way, though I haven't ruled out the database.",
              "Sales will probably rise next quarter, based on the current pipeline.",
              "I believe the meeting is on Thursday; that's what the last email said.",
              "The new update is likely the cause, since the errors started right after it.",
              "I'm pretty sure these figures are from 2022, but I'd double-check the source.",
              "The leak is probably coming from the roof; the stain is right under the gutter.",
              "In all likelihood it's the printer driver; reinstalling it usually fixes this.",
              "I expect the client will accept the offer, as they reacted well to the draft.",
              "The store should be open on holidays, as far as I know."],
        boundary=["I'm quite sure it's the cache, though I'd like one more test to confirm.",
                  "Almost certainly the supplier's delay, pending their reply.",
                  "Very likely the battery; the charger works fine with another device.",
                  "The numbers look right to me, although I've only checked half of them.",
                  "Around 200 people should come, judging by registrations so far.",
                  "I think the contract allows it; clause 7 seems to say so."],
        decoy=[("0", "I'm not 100% sure, but it's very likely the router: every other device reconnects when I swap it.")]),
    lvl("2", "certain", ["Certain: states it flatly, with no hedging", "High confidence, no doubt expressed", "Fully certain"],
        easy=["The shipment arrives Tuesday. The carrier has confirmed it.",
              "It's the network. I've checked: the switch on floor 2 is down.",
              "Sales will rise next quarter. No doubt about it.",
              "The meeting is on Thursday at 10. Definitely.",
              "The new update is the cause; rolling it back fixed the errors immediately.",
              "These figures are from 2022. I checked the source myself.",
              "The leak comes from the roof. Without question.",
              "It is the printer driver. I'm certain.",
              "The client will accept the offer; they've already told us so in writing.",
              "The store is open on holidays, 10 to 4. I've been there every year."],
        boundary=["It's the cache. I'm sure of it, even though I haven't written the test yet.",
                  "I know it's the supplier; they've admitted it.",
                  "The battery is dead. Swapping it fixed the problem.",
                  "I have absolutely no doubt the numbers are correct.",
                  "Exactly 200 people are coming; registration is closed.",
                  "The contract allows it. Clause 7 says so explicitly."],
        decoy=[("0", "People keep saying 'maybe', but there's no maybe about it: the deadline is Friday.")]),
]

CONFIDENCE = ordered(
    "lv-confidence", "writing_style", CONF_LEVELS, n_score=4,
    score_q=["How confident is the writer in what they state?", "Rate the certainty expressed in the message.",
             scale_q("How sure does the author sound?", CONF_LEVELS), "Writer's expressed confidence: hedged to certain"],
    threshold_q=[(2, "Does the writer state it as certain, without hedging?")],
    wrap=record_wrap("text", {"author": person, "thread": lambda r: r.choice(["#ops", "#sales", "team email", "project notes", "family chat"])}, 0.55),
)


# --------------------------------------------------------------------------------------------
# 11. Clarity of a paragraph (3 levels)
# --------------------------------------------------------------------------------------------
CLAR_LEVELS = [
    lvl("0", "hard to follow", ["Hard to follow: vague references, tangled order or unexplained jargon; the meaning is unclear",
                                "Confusing", "Unclear text"],
        easy=["To do the thing with the settings you first go to it and then the other one but not before the reset, which you do after, unless it's already on, then the other way, then save, or not.",
              "Pursuant to the aforementioned re-provisioning of the endpoint artefact, utilise the deprecated heuristic vis-a-vis the canonical locus, mutatis mutandis.",
              "Click it, then the one next to it, then when it does that do this, and if it doesn't, go back to where it was before the other one and try again with it.",
              "Refunds, which, as per the section referenced above in the part about returns (see below), are processed, subject to conditions, excluding those not included, within the period, unless otherwise.",
              "The app, if installed, which it may or may not be depending on the version, which differs by region (see region), should or can be restarted, after which, the settings.",
              "Before you unplug the router, plug the router back in after waiting, but don't wait too long before you unplug it first.",
              "Our meeting re the thing from before re the other meeting is moved to when we said, or the one after, depending.",
              "Sign-in not working? That's the token, which is the key the session uses, which expires if the cookie that stores it was cleared by the browser, which...",
              "Fill in form A (unless B applies, then C, but A is still needed if D) and send it to the usual place, same as last time except for the change.",
              "Q4 up vs Q3 YoY adj. excl. one-offs ex-FX net of reorg, pls see prev. deck, slide 'other'."],
        boundary=["The form, the new one, not the old one that's still there, goes to HR, or to your manager if HR is who sent it, then back, then done.",
                  "Reset happens when you hold it, the button, the small one, not the power one, unless the light is on, then it's the other.",
                  "The deadline for it is the end of the thing, same as the last one but a week later than that one was going to be.",
                  "Orders after cut-off (cut-off varies, see cut-off) ship the next working day, excluding non-working days, which vary.",
                  "Install it after the update, but update it first after installing if the install didn't include the update.",
                  "Re the numbers: they're as before but changed where they needed to be, which is mostly where they were wrong."],
        decoy=[("2", "Simple steps: 1) do it, 2) the other one, 3) back to it unless 2 didn't work, then 1 again but different.")]),
    lvl("1", "understandable with effort", ["Understandable but wordy: long, passive or bureaucratic sentences, yet the meaning is clear",
                                            "Clear meaning, clumsy wording", "Readable with some effort"],
        easy=["It is requested that all employees ensure that their timesheets are submitted by the end of Friday, in order that the payroll process can be completed in a timely manner by the finance department.",
              "In the event that the device fails to power on after the battery has been charged for a period of no less than two hours, it is recommended that the reset button be pressed and held for a duration of ten seconds.",
              "With regard to the meeting that was originally scheduled for Tuesday, please be advised that it has been moved, owing to a number of scheduling conflicts, to Thursday at 10 a.m.",
              "Refunds are processed within a period of 14 days from the date on which the returned item has been received by our warehouse, provided that the item is unused and in its original packaging.",
              "At this point in time, we would like to take the opportunity to inform all customers that the office will be closed for the duration of the public holiday on Monday.",
              "The purpose of this document is to set out the steps that are to be followed by new starters in order to obtain access to the systems that will be required in the course of their work.",
              "Due to the fact that the server will be undergoing scheduled maintenance, users may find themselves in a situation in which they are unable to log in between the hours of 22:00 and 23:00.",
              "Should you wish to change your delivery address, it will be necessary for you to contact our customer service team, who will then be in a position to make the change on your behalf, as long as the order has not yet been dispatched.",
              "It has been brought to our attention that a number of users have been experiencing difficulties with the export function, and an investigation into the cause of these difficulties is currently being carried out.",
              "Applications, which must include both a CV and a cover letter, are to be submitted by means of the online portal, and applications submitted by any other means will, regrettably, not be able to be considered."],
        boundary=["Please be advised that the deadline for the submission of expense reports has been changed to the 5th day of each month.",
                  "Users are hereby reminded that passwords are required to be changed every 90 days and that the reuse of any of the previous five passwords is not permitted.",
                  "In order to book a meeting room, it is necessary to make use of the booking calendar, which can be found on the intranet home page.",
                  "Customers who have not as yet received their order are kindly asked to allow an additional period of three working days before contacting us.",
                  "It should be noted that parking is not available on site, and visitors are therefore advised to make use of public transport.",
                  "The cafeteria will, with effect from next week onwards, be opening at the earlier time of 7:30 in the morning."]),
    lvl("2", "clear", ["Clear and concise: plain words, short sentences, easy to act on", "Very clear", "Clear, no effort needed"],
        easy=["Submit your timesheet by Friday at 5 pm.",
              "If the device won't turn on after two hours of charging, hold the reset button for ten seconds.",
              "Tuesday's meeting is moved to Thursday at 10 a.m.",
              "We refund unused items in their original packaging within 14 days of receiving them.",
              "The office is closed on Monday for the public holiday.",
              "New starters: request system access through the IT portal on your first day.",
              "The server is down for maintenance from 22:00 to 23:00. You can't log in during that hour.",
              "To change your delivery address, contact customer service before your order ships.",
              "We know the export isn't working for some users. We're investigating and will update you by Wednesday.",
              "Apply through the online portal with your CV and a cover letter."],
        boundary=["Expense reports are now due on the 5th of each month.",
                  "Change your password every 90 days. You can't reuse your last five passwords.",
                  "Book meeting rooms in the calendar on the intranet home page.",
                  "If your order hasn't arrived, please wait three more working days before contacting us.",
                  "There's no parking on site, so please come by public transport.",
                  "From next week, the cafeteria opens at 7:30."],
        decoy=[("0", "Clear the cache (the stored copy of pages your browser keeps), then reload the page."),
               ("1", "As per the new policy, visitors sign in at reception.")]),
]

CLARITY = ordered(
    "lv-clarity", "writing_style", CLAR_LEVELS, n_score=4,
    score_q=["How clear and readable is this paragraph?", "Rate the readability of the text.",
             scale_q("Readability check for this notice", CLAR_LEVELS, 1), "Clarity of the writing"],
    threshold_q=[(1, "Can a reader work out what the text means?")],
    wrap=record_wrap("paragraph", {"document": lambda r: r.choice(["staff notice", "help article", "customer email", "FAQ entry"]),
                                   "draft_by": person}, 0.5),
)


# --------------------------------------------------------------------------------------------
# 12. How well an answer is supported by a passage (3 levels, custom generator)
# --------------------------------------------------------------------------------------------
# (passage, question, supported A, supported B, unsupported-but-plausible X, contradicted Y)
PASSAGES = [
    ("The Brantley ferry runs between Oswin Harbour and Tellis Island four times a day. The crossing takes 40 minutes. "
     "Bicycles travel free, but cars must be booked at least a day ahead.",
     "What should I know about taking the ferry to Tellis Island?",
     "The crossing takes about 40 minutes.", "You can bring a bicycle at no charge.",
     "Dogs must be kept on a lead on deck.", "The ferry only sails twice a day."),
    ("Marlow Community Library opened its new reading room in 2019. It is open Tuesday to Saturday, 9:00 to 18:00, "
     "and members can borrow up to eight books for three weeks.",
     "How does borrowing work at Marlow library?",
     "You can borrow up to eight books at a time.", "Loans last three weeks.",
     "Late returns cost 20 cents per day.", "The library is open on Sundays."),
    ("The Kelvo K2 kettle holds 1.7 litres and switches itself off when the water boils. Its base rotates 360 degrees, "
     "and the warranty lasts two years.",
     "Tell me about the Kelvo K2 kettle.",
     "It turns itself off once the water boils.", "It comes with a two-year warranty.",
     "It has a keep-warm setting.", "It holds 1.2 litres."),
    ("The Ardent Valley trail is 14 km long and climbs 600 metres. It is closed from December to March because of snow. "
     "There is a drinking water tap at the halfway hut.",
     "Anything I should know before hiking the Ardent Valley trail?",
     "There's a water tap at the halfway hut.", "The trail is 14 km long.",
     "Camping is allowed at the summit.", "The trail stays open all winter."),
    ("At Pellham Studio, employees may work from home up to two days a week. Remote days must be entered in the team calendar "
     "by Friday of the previous week. Home office equipment is reimbursed up to $300.",
     "What is Pellham Studio's remote work policy?",
     "You can work from home up to two days per week.", "Home office equipment is reimbursed up to $300.",
     "Remote work isn't allowed during your first month.", "Remote days can be logged on the same morning."),
    ("The Quarry Lights festival takes place on the last weekend of August. Day tickets cost 35 euros, children under 12 "
     "enter free, and glass bottles are not allowed on site.",
     "What do I need to know about tickets and rules for Quarry Lights?",
     "Children under 12 get in for free.", "A day ticket costs 35 euros.",
     "There's free parking next to the entrance.", "You're allowed to bring glass bottles."),
    ("The sorrel fern grows best in shade and needs watering twice a week. It is not toxic to cats and can reach 80 cm in height.",
     "How do I care for a sorrel fern, and is it safe for my cat?",
     "It prefers a shady spot.", "It's safe for cats.",
     "It flowers every spring.", "It needs full sun."),
    ("Version 4 of the Tandem notes app adds an offline mode and encrypted sharing. It drops support for Android 9, "
     "and sync now runs every five minutes.",
     "What changed in Tandem 4?",
     "It adds an offline mode.", "Sync now happens every five minutes.",
     "It introduces a dark theme.", "It still supports Android 9."),
    ("The Cressida Hotel has 48 rooms and a rooftop pool open from May to September. Breakfast is served from 7:00 to 10:30, "
     "and pets up to 10 kg are welcome for a fee.",
     "What facilities does the Cressida Hotel have?",
     "Breakfast is served until 10:30.", "Small pets are allowed for a fee.",
     "There's a spa with a sauna.", "The pool is open all year round."),
    ("The evening pottery course runs for eight weeks on Wednesdays. All clay and tools are included in the fee of 180 pounds, "
     "and beginners are welcome.",
     "Tell me about the evening pottery course.",
     "The course lasts eight weeks.", "Clay and tools are included in the price.",
     "Classes are limited to ten students.", "It takes place on Mondays."),
    ("Greenlane Bikes rents e-bikes for 25 euros per day, helmet included. Bikes must be returned by 20:00, and a passport "
     "or ID card is kept as a deposit.",
     "How does renting an e-bike from Greenlane work?",
     "A helmet comes with the rental.", "You have to leave a passport or ID card as a deposit.",
     "Child seats are available on request.", "You can return the bike any time before midnight."),
    ("The Halvard Maritime Museum is free on the first Sunday of each month. Photography without flash is allowed, "
     "and the cafe closes one hour before the museum.",
     "What should I know before visiting the Halvard Maritime Museum?",
     "Entry is free on the first Sunday of every month.", "You can take photos as long as you don't use a flash.",
     "Guided tours run every hour.", "Flash photography is allowed."),
    ("This bread uses 500 g of flour, 7 g of dried yeast and 350 ml of water. The dough rises for 90 minutes, "
     "and the loaf bakes at 220 degrees for 35 minutes.",
     "How do I make this bread?",
     "The dough needs to rise for an hour and a half.", "You bake it at 220 degrees.",
     "You should add a tablespoon of olive oil.", "It bakes for 20 minutes."),
    ("Ironvale Gym's basic membership costs $29 a month and gives access from 6:00 to 22:00. Group classes cost extra. "
     "Members can freeze their membership for up to two months a year.",
     "What does the basic membership at Ironvale Gym include?",
     "Basic membership is $29 per month.", "You can pause your membership for up to two months a year.",
     "There's no joining fee.", "Group classes are included."),
]

SUPPORT_LEVELS = [
    lvl("0", "not supported", ["Not supported: the answer's claims are missing from or contradicted by the passage",
                               "Unsupported by the source", "No support in the passage"]),
    lvl("1", "partly supported", ["Partly supported: some claims are in the passage, at least one is not or is contradicted",
                                  "Mixed: partly grounded", "Partial support"]),
    lvl("2", "fully supported", ["Fully supported: every claim in the answer is stated in the passage",
                                 "Completely grounded in the source", "Full support"]),
]


def gen_support(rng, key, diff):
    passage, question, a, b, x, y = rng.choice(PASSAGES)
    level, d = int(key), "easy"
    lead = ""
    if level == 2:
        claims = [a, b]
        if diff == "boundary":
            claims, d = [rng.choice([a, b])], "boundary"
        elif diff == "decoy":
            lead, d = rng.choice(["I might be wrong, but here's what I found. ", "Not completely sure, but: "]), "decoy"
    elif level == 1:
        claims = [rng.choice([a, b]), y]
        if diff == "boundary":
            claims, d = [a, b, x], "boundary"
        elif diff == "decoy":
            claims, d = [rng.choice([a, b]), x], "decoy"
            lead = rng.choice(["Everything below comes from the passage. ", "Straight from the source: "])
    else:
        claims = rng.choice([[x, y], [y]])
        if diff == "boundary":
            claims, d = [x], "boundary"
        elif diff == "decoy":
            claims, d = [rng.choice([x, y])], "decoy"
            lead = rng.choice(["According to the passage, ", "The text clearly says this: "])
    if level != 1 or diff != "boundary":
        rng.shuffle(claims)
    answer = " ".join(claims)
    if lead:
        answer = lead + (answer[0].lower() + answer[1:] if lead.endswith(", ") else answer)
    r = rng.random()
    if r < 0.4:
        return {"passage": passage, "question": question, "answer": answer}, d
    if r < 0.7:
        return f"Passage: {passage}\n\nQuestion: {question}\nAnswer: {answer}", d
    return [{"role": "system", "content": f"Answer using this document only:\n{passage}"},
            {"role": "user", "content": question}, {"role": "assistant", "content": answer}], d


SUPPORT = ordered(
    "lv-grounding", "rag", SUPPORT_LEVELS, gen=gen_support, n_score=4,
    score_q=["How well is the answer supported by the passage?", "Rate how grounded the answer is in the source text.",
             scale_q("Check the answer against the document.", SUPPORT_LEVELS), "Evidence support for the answer's claims"],
    threshold_q=[(2, "Is every claim in the answer backed by the passage?")],
)


# --------------------------------------------------------------------------------------------
# 13. Patient-reported pain level from an intake note (5 levels, custom generator; non-diagnostic)
# --------------------------------------------------------------------------------------------
PAIN_LEVELS = [
    lvl("0", "none", ["No pain (0 out of 10)", "Pain-free, rated 0/10", "None: 0"]),
    lvl("1", "mild", ["Mild pain (1 to 3 out of 10)", "Mild, rated 1-3/10", "Mild: 1-3"]),
    lvl("2", "moderate", ["Moderate pain (4 to 6 out of 10)", "Moderate, rated 4-6/10", "Moderate: 4-6"]),
    lvl("3", "severe", ["Severe pain (7 to 8 out of 10)", "Severe, rated 7-8/10", "Severe: 7-8"]),
    lvl("4", "extreme", ["Extreme pain (9 to 10 out of 10)", "Worst imaginable, rated 9-10/10", "Extreme: 9-10"]),
]
PAIN_SITES = ["lower back", "left knee", "right shoulder", "neck", "right wrist", "left ankle", "hip", "upper back", "jaw", "right elbow"]
PAIN_VISITS = ["follow-up after physiotherapy", "routine check-in", "first visit about the {site}", "review after a fall last week",
               "repeat prescription appointment", "check-up before returning to work", "review after a sports injury"]
PAIN_FUNC = {   # (note wording, patient's own wording)
    0: [("says the pain has gone completely", "the pain has gone completely"), ("no pain at rest or when moving", "nothing hurts, resting or moving"),
        ("walked in without difficulty and reports feeling well", "I feel well and walk without difficulty")],
    1: [("notices it but carries on with all normal activities", "I notice it but I do everything as normal"),
        ("only aware of it when pressing on the area", "I only feel it when I press on it"), ("sleeps and works normally", "I sleep and work normally")],
    2: [("it gets in the way of some activities, such as climbing stairs", "it gets in the way of some things, like stairs"),
        ("takes breaks at work because of it", "I have to take breaks at work"), ("sleep is disturbed on some nights", "it wakes me up on some nights")],
    3: [("it wakes them at night and makes work very hard", "it wakes me every night and work is very hard"),
        ("has stopped most daily activities", "I've stopped doing most things"), ("struggles to concentrate on anything else", "I can't concentrate on anything else")],
    4: [("describes it as the worst pain they can imagine", "it's the worst pain I can imagine"),
        ("can barely move or speak because of it", "I can barely move or talk"), ("cannot sit still or find any comfortable position", "I can't find any position that helps")],
}
PAIN_EASY = {0: [0], 1: [1, 2], 2: [5], 3: [7, 8], 4: [10]}
PAIN_EDGE = {0: [0], 1: [3], 2: [4, 6], 3: [7, 8], 4: [9]}
NUM_WORD = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def pain_score_phrase(rng, n):
    return rng.choice([f"{n}/10", f"{n} out of 10", f"a {NUM_WORD[n]} out of ten", f"{n} on a 0-10 scale"])


def gen_pain(rng, key, diff):
    level, d = int(key), "easy"
    site = rng.choice(PAIN_SITES)
    visit = rng.choice(PAIN_VISITS).replace("{site}", site)
    n = rng.choice(PAIN_EASY[level])
    if diff == "boundary":
        n, d = rng.choice(PAIN_EDGE[level]), "boundary"
    func, own = rng.choice(PAIN_FUNC[level])
    quote = None
    if diff == "decoy":
        d = "decoy"
        if level == 0:
            quote = rng.choice(["Last month it was agony, but not any more!", "It was a nightmare before the physio, now nothing."])
        elif level <= 2:
            quote = rng.choice(["It's killing me!", "Agony, absolute agony.", "This is a nightmare!"])
            if level < 2:
                func, own = func + "; on reflection calls it more of an annoyance", own + ", honestly it's more of an annoyance"
        else:
            quote = rng.choice(["I'm fine, don't fuss.", "It's nothing really, I don't like to complain.", "Just a twinge."])
    score = pain_score_phrase(rng, n)
    age = rng.randint(19, 86)
    r = rng.random()
    if r < 0.35:
        rec = {"patient": f"{rng.choice('ABCDEFGHJKLMNPRSTW')}.{rng.choice('ABCDEFGHJKLMNPRSTW')}.", "age": age, "visit": visit,
               "pain_site": site, "patient_reports": func, "pain_score_0_10": n}
        if quote:
            rec["patient_quote"] = quote
        return rec, d
    q = f' Patient says: "{quote}"' if quote else ""
    if r < 0.7:
        return f"Intake note, {age}-year-old, {visit}. Area: {site}; {func}.{q} Self-rated pain: {score}.", d
    return [{"role": "assistant", "content": "Before the appointment: where is the pain, and how bad is it from 0 to 10?"},
            {"role": "user", "content": ("It was" if level == 0 else "It's") + f" my {site}. I'd say {score}." + (f" {quote}" if quote else "")},
            {"role": "assistant", "content": "Thanks. How does it affect your day?"},
            {"role": "user", "content": f"Well, {own}."}], d


PAIN = ordered(
    "lv-pain", "medical_triage", PAIN_LEVELS, gen=gen_pain, n_score=5,
    score_q=["What pain level does the patient report?", "Rate the patient-reported pain from the intake note.",
             "Pain intensity reported by the patient", scale_q("Record the patient's self-reported pain band.", PAIN_LEVELS, 1),
             {"question": "Which pain band matches the patient's own rating?", "note": "Use the patient's 0-10 rating, not their choice of words."}],
    threshold_q=[(3, "Does the patient report severe pain (7/10 or more)?")],
)


# --------------------------------------------------------------------------------------------
# 14. Budget overrun in a project update (5 levels, custom generator)
# --------------------------------------------------------------------------------------------
BUDGET_LEVELS = [
    lvl("0", "on budget", ["On or under budget", "No overrun: costs at or below budget", "Within budget"]),
    lvl("1", "slight", ["Slight overrun: up to 5% over budget", "Over budget by 5% or less", "Slightly over (1-5%)"]),
    lvl("2", "moderate", ["Moderate overrun: more than 5% and up to 15% over", "Over budget by 6-15%", "Moderately over (6-15%)"]),
    lvl("3", "major", ["Major overrun: more than 15% and up to 30% over", "Over budget by 16-30%", "Well over (16-30%)"]),
    lvl("4", "severe", ["Severe overrun: more than 30% over budget", "Over budget by over 30%", "Severely over (31% or more)"]),
]
BUDGET_RANGE = {0: (-12, -1), 1: (2, 4), 2: (8, 13), 3: (19, 27), 4: (38, 85)}
BUDGET_EDGE = {0: [0, -1], 1: [1, 5], 2: [6, 15], 3: [16, 30], 4: [31, 32]}
PROJECTS = ["warehouse roof replacement", "CRM migration", "new website", "{city} office fit-out", "mobile app redesign",
            "staff training programme", "data centre move", "customer portal", "fleet electrification pilot", "brand refresh",
            "payroll system upgrade", "community sports hall renovation"]
NEUTRAL_NEWS = ["The schedule is on track for the {month} milestone.", "Two new team members joined this week.",
                "Testing starts on {day}.", "The steering group meets again on {date}.", "Vendor workshops are complete.",
                "User feedback from the pilot has been positive.", "The next update will follow in two weeks.",
                "Risks and issues are logged in the shared tracker."]


def money(v):
    return f"${v:,}"


def cost_sentence(rng, p, budget):
    forecast = round(budget * (100 + p) / 100 / 1000) * 1000
    if p == 0:
        return rng.choice([f"Costs are exactly on budget at {money(budget)}.", "Forecast final cost equals the approved budget; 0% variance."])
    if p < 0:
        return rng.choice([f"We expect to finish {-p}% under budget.",
                           f"Forecast final cost is {money(forecast)} against a budget of {money(budget)} ({-p}% under).",
                           f"Spend is tracking {-p}% below the approved budget."])
    return rng.choice([f"We are now forecasting {p}% over budget.",
                       f"Forecast final cost is {money(forecast)} against a budget of {money(budget)}, {p}% over.",
                       f"Cost variance: +{p}% against the approved budget of {money(budget)}.",
                       f"The latest estimate puts us {p}% above budget."])


def gen_budget(rng, key, diff):
    level, d = int(key), "easy"
    p = rng.randint(*BUDGET_RANGE[level])
    if diff == "boundary":
        p, d = rng.choice(BUDGET_EDGE[level]), "boundary"
    budget = rng.randint(4, 90) * 10000
    proj = fill(rng, rng.choice(PROJECTS))
    cost = cost_sentence(rng, p, budget)
    extra = [fill(rng, s) for s in rng.sample(NEUTRAL_NEWS, rng.randint(1, 3))]
    if diff == "decoy":
        d = "decoy"
        if level <= 1:
            cost = rng.choice(["Red alert on costs! ", "Budget alarm: ", "Bad news on money: "]) + cost
            if level == 0:
                extra.insert(0, "The schedule overran by three weeks.")
        else:
            cost = rng.choice(["No drama on finances: ", "Nothing to worry about, really. ", "Costs are broadly fine. "]) + cost
    parts = extra + [cost]
    rng.shuffle(parts)
    text = " ".join(parts)
    r = rng.random()
    if r < 0.45:
        return {"project": proj, "project_manager": person(rng), "report_period": fill(rng, "{month}"), "update": text}, d
    if r < 0.75:
        return f"Status update - {proj}\n{text}", d
    return f"Hi all, quick update on the {proj}. {text} Thanks, {rng.choice(FIRST)}", d


BUDGET = ordered(
    "lv-budget", "finance_projects", BUDGET_LEVELS, gen=gen_budget, n_score=4,
    score_q=["What level of budget overrun does this project update report?", "Rate the cost overrun of the project.",
             scale_q("How far over budget is the project?", BUDGET_LEVELS, 1), "Budget status band for the project"],
    threshold_q=[(3, "Is the project more than 15% over budget?")],
)


# --------------------------------------------------------------------------------------------
# 15. How completely an agent fulfilled a four-part request (5 levels, custom generator)
# --------------------------------------------------------------------------------------------
# each scenario: four parts of (request phrase, done report, failure report)
ERRANDS = [
    [("book a flight to {city} for Friday morning", "I booked the 8:10 flight to {city} on Friday.", "I couldn't book the Friday flight to {city}: both morning flights are full."),
     ("reserve a hotel near the venue for two nights", "A hotel near the venue is reserved for two nights.", "I wasn't able to reserve a hotel; everything near the venue is sold out."),
     ("rent a small car for the weekend", "A small rental car is booked for the weekend.", "The car rental site kept timing out, so there's no car yet."),
     ("add the trip to my calendar", "The trip is in your calendar.", "I don't have access to your calendar, so the trip isn't in it.")],
    [("fix the typos in the Q2 report", "I fixed 14 typos in the Q2 report.", "I couldn't open the Q2 report to fix the typos; the file is locked."),
     ("add a one-paragraph executive summary", "There's now an executive summary at the top.", "I didn't write the executive summary because I wasn't sure what to include."),
     ("save a PDF copy", "A PDF copy is saved next to the original.", "The PDF conversion failed with an error."),
     ("email it to {name}", "I emailed it to {name}.", "I haven't sent it to {name}; I couldn't find their address.")],
    [("move Tuesday's stand-up to 10:00", "Tuesday's stand-up now starts at 10:00.", "I couldn't move Tuesday's stand-up because you're not the organiser."),
     ("invite {name} to Thursday's review", "{name} is invited to Thursday's review.", "Inviting {name} to Thursday's review failed; the address bounced."),
     ("cancel the Friday team lunch", "The Friday team lunch is cancelled.", "I couldn't find the Friday team lunch in the calendar, so it's still on."),
     ("set a reminder for my dentist appointment", "A reminder for your dentist appointment is set.", "The dentist reminder wasn't created because of a sync error.")],
    [("remove duplicate contacts from the list", "I removed 37 duplicate contacts.", "I didn't manage to remove the duplicates; the tool crashed."),
     ("export the list to CSV", "The list is exported as contacts.csv.", "The CSV export didn't work."),
     ("count how many contacts are in {city}", "There are 212 contacts in {city}.", "I couldn't count the contacts in {city} because the city field is empty for most rows."),
     ("share the file with the sales team", "The file is shared with the sales team.", "I couldn't share it with the sales team; I don't have permission.")],
    [("order two boxes of printer paper", "Two boxes of printer paper are ordered.", "Printer paper is out of stock, so I didn't order any."),
     ("order a black toner cartridge", "A black toner cartridge is on its way.", "I couldn't find the right toner model, so none was ordered."),
     ("start a return for the broken stapler", "The stapler return is started and the label is in your inbox.", "The stapler is past the return window, so I couldn't start a return."),
     ("check when the new chairs will arrive", "The chairs arrive on {day}.", "I couldn't find any tracking information for the chairs.")],
    [("update the logging library", "The logging library is updated to the latest version.", "I didn't update the logging library; the new version needs a newer runtime."),
     ("run the test suite", "I ran the tests and all 412 pass.", "The test suite didn't run because the CI runner is offline."),
     ("fix the lint errors", "The lint errors are fixed.", "I left the lint errors; fixing them needs changes outside my permissions."),
     ("open a pull request", "The pull request is open.", "I couldn't open the pull request because the branch is protected.")],
    [("reply to {name} to confirm Monday's meeting", "I replied to {name} confirming Monday's meeting.", "I couldn't find {name}'s email about Monday's meeting, so I didn't reply."),
     ("archive all the newsletters", "All newsletters are archived.", "Archiving the newsletters failed partway and was rolled back."),
     ("unsubscribe me from the furniture shop emails", "You're unsubscribed from the furniture shop emails.", "The furniture shop's unsubscribe link is broken, so you're still subscribed."),
     ("flag every invoice email from this month", "This month's invoice emails are flagged.", "I didn't flag the invoice emails; the search returned an error.")],
    [("book a room for 20 people on the 14th", "Room 3B is booked for 20 people on the 14th.", "No room for 20 is free on the 14th, so nothing is booked."),
     ("order lunch for the group", "Lunch for 20 is ordered.", "The caterer didn't confirm, so lunch isn't ordered."),
     ("send out the invitations", "The invitations are sent.", "I haven't sent the invitations because the guest list is missing."),
     ("make a sign-up form", "The sign-up form is ready at forms.example/signup.", "I couldn't create the sign-up form; the forms tool needs an admin account.")],
    [("categorise last month's expenses", "Last month's expenses are categorised.", "I couldn't categorise the expenses; the bank feed didn't load."),
     ("flag any duplicate charges", "I flagged two duplicate charges.", "I didn't get to checking for duplicate charges."),
     ("give me the monthly total", "The monthly total is {amount}.", "I can't give you a total because the data is incomplete."),
     ("draft a short summary for my manager", "A draft summary for your manager is in your drafts folder.", "The summary for your manager isn't drafted.")],
    [("set the thermostat to 20 degrees", "The thermostat is set to 20 degrees.", "The thermostat is offline, so I couldn't change it."),
     ("start the robot vacuum at 10:00", "The robot vacuum will start at 10:00.", "The vacuum reported a full bin and refused to schedule a run."),
     ("turn off the porch lights", "The porch lights are off.", "The porch lights didn't respond, so they're still on."),
     ("lock the front door", "The front door is locked.", "I couldn't lock the front door; the lock's battery is dead.")],
]
ASK_ONLY = ["Before I start, could you confirm which account I should use?", "I can help with that. Which of these should I do first?",
            "Sorry, I can't do any of that right now; my tools are unavailable."]


def gen_fulfil(rng, key, diff):
    level, d = int(key), "easy"
    parts = rng.choice(ERRANDS)
    ex = {"city": rng.choice(CITY), "name": rng.choice(FIRST)}
    asks = [fill(rng, p[0], ex) for p in parts]
    style = rng.randrange(3)
    if style == 0:
        request = f"Could you {asks[0]}, {asks[1]}, {asks[2]}, and {asks[3]}?"
    elif style == 1:
        request = "Please do these for me:\n" + "\n".join(f"{i + 1}. {a[0].upper() + a[1:]}" for i, a in enumerate(asks))
    else:
        request = f"Four things today: {asks[0]}; {asks[1]}; {asks[2]}; {asks[3]}."
    done = set(rng.sample(range(4), level))
    may_omit = diff == "boundary" and 0 < level < 4
    lines = []
    omitted = False
    for i, p in enumerate(parts):
        if i in done:
            lines.append(fill(rng, p[1], ex))
        elif may_omit and not omitted:
            omitted = True           # silently skipped: the report just doesn't mention it
        else:
            lines.append(fill(rng, p[2], ex))
    if omitted:
        d = "boundary"
    opener = rng.choice(["", "", "Here's where things stand. ", "Update: ", "Okay, here's what I did. "])
    if diff == "decoy":
        d = "decoy"
        if level <= 2:
            opener = rng.choice(["All set! ", "Great news, it's all taken care of. ", "Done! "])
        else:
            opener = rng.choice(["Sorry, this took a while and I hit a few snags. ", "Apologies for the delay. "])
    if level == 0 and rng.random() < 0.3:
        report = rng.choice(ASK_ONLY)
    else:
        report = opener + " ".join(lines)
    if rng.random() < 0.35:
        return {"user_request": request, "agent_final_report": report, "agent": rng.choice(["assistant", "ops-agent", "helper-bot"])}, d
    return [{"role": "user", "content": request}, {"role": "assistant", "content": report}], d


FULFIL_LEVELS = [
    lvl("0", "nothing", ["Nothing the user asked for was done", "None of the four tasks completed", "Not fulfilled at all"]),
    lvl("1", "one part", ["Only one of the requested tasks was done", "A small part done (one task)", "Barely fulfilled"]),
    lvl("2", "half", ["About half: two of the requested tasks were done", "Half done (two tasks)", "Half fulfilled"]),
    lvl("3", "most", ["Almost everything: all but one requested task done", "Mostly done (three tasks)", "Mostly fulfilled"]),
    lvl("4", "complete", ["Everything the user asked for was done", "Fully completed, all four tasks", "Completely fulfilled"]),
]

FULFIL = ordered(
    "lv-fulfilment", "agent_traces", FULFIL_LEVELS, gen=gen_fulfil, n_score=5,
    score_q=["How completely did the agent fulfil the user's request?", "Rate how much of the request the assistant actually got done.",
             scale_q("Completion level of the agent's work", FULFIL_LEVELS, 1), "Request fulfilment, judged from the agent's report",
             {"question": "How much of what the user asked for was done?", "note": "Count only tasks the agent reports as done; ignore its tone."}],
    threshold_q=[(4, "Did the agent complete every task the user asked for?")],
)


FAMILIES = [BUG_URGENCY, FRUSTRATION, CHANGE_RISK, FEEDBACK, SENSITIVITY, SEC_SEVERITY, STANCE, POLITENESS, SPAM,
            CONFIDENCE, CLARITY, SUPPORT, PAIN, BUDGET, FULFIL]
