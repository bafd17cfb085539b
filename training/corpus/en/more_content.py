"""Additional hand-written easy/boundary fragments for the bank-based families.

Applied by generate.py after the family modules are imported: EXTRA[family_id][label] = (easy, boundary).
"""

EXTRA = {
    "sched-intent": {
        "book": (["Do you have anything free on {day} morning for a consultation? I'd like to book it.", "Please put me down for the 2pm yoga class on {day}.",
                  "I'd like to arrange a viewing of the flat this week if possible.", "Could we get a meeting in the diary with your finance lead before month-end?"], []),
        "reschedule": (["My flight changed, so could we do {day} instead of {date} for the call?", "Can the interview be moved to the afternoon? Same day is fine.",
                        "Is it possible to shift my check-up to the following week?", "Running behind today, could we start at 4 instead of 3?"],
                       ["I can't do Tuesday after all. Thursday or Friday would work, whatever suits you."]),
        "cancel": (["We've found another supplier, so please cancel Thursday's demo.", "I'm unwell and won't be coming to the appointment; please remove it, no need to rebook.",
                    "Please call off the site visit on {date}, the project is on hold indefinitely."], []),
        "confirm": (["Perfect, {date} at 11:00 it is. I've put it in my calendar.", "Great, that slot works. Looking forward to it.", "Confirmed for {day}, I'll bring the documents."], []),
        "availability": (["Which days next week does Dr {name} have openings?", "What are your opening hours over the holidays?", "Is there any chance of a Saturday slot in the next month?"], []),
    },
    "bot-intent": {
        "order_status": (["It says 'processing' for four days now, has it left the warehouse?", "Order {order} - any update on when it ships?", "Did my parcel get dispatched yet?"], []),
        "return": (["How many days do I have to return a dress?", "The lamp doesn't match my room, I'd like to return it for a refund.", "Can I swap these jeans for a bigger size?"], []),
        "product_question": (["Is the kettle cordless?", "Will this case fit the 13-inch model?", "Are these boots suitable for hiking in snow?", "Is the sofa fabric removable for washing?"], []),
        "complaint": (["I want to complain about the state of the store on {city} high street.", "The delivery driver damaged my gate and was rude about it. I want this on record.",
                       "I'm disappointed with how long your team took to respond to my last issue."], []),
        "human": (["Please connect me with customer service staff.", "Is there a person I can speak with?", "I'd like to talk to someone, the menu doesn't cover my problem."], []),
    },
    "fin-doctype": {
        "invoice": (["Invoice INV-{nn}{n}9 to {company}: annual hosting, {amount}. Terms: net 14. Please quote the invoice number with your payment."], []),
        "receipt": (["Thank you for your payment. Transaction ID {nn}{n}A. Paid {amount} by bank transfer on {date}. Outstanding: 0.00."], []),
        "quote": (["Price proposal for {n} days of on-site training: {amount} plus travel. Subject to your approval; no invoice will be raised until you confirm."], []),
        "credit_note": (["We have reversed {amount} of the charges on invoice INV-{nn}45 as agreed. This credit note reduces your balance accordingly."], []),
        "payment_reminder": (["Our records show invoice INV-{nn}{n}6 is now past due. Please arrange payment of {amount} within seven days."], []),
        "purchase_order": (["PO-{nn}{n}2 issued to {company}: {n} replacement laptops per quote Q-{nn}31. Ship to our {city} office. Invoice against this PO number."], []),
    },
    "hr-case": {
        "leave": (["Could I swap my Friday holiday for the following Monday?", "I'll need two days off next week for a medical procedure."], []),
        "payroll": (["My bank details changed; which date will my salary go to the new account?", "The deduction for the bike scheme appears twice on my payslip."], []),
        "benefits": (["Does our life insurance cover my partner too?", "How do I claim the home-office allowance?", "When does the benefits enrolment window open?"], []),
        "complaint": (["A colleague keeps making racist jokes in team chats and I want to report it."], []),
        "recruiting": (["We need to backfill a position in the warehouse team, how do I start the requisition?", "A candidate asked about the interview format for the finance role."], []),
    },
    "legal-area": {
        "employment": (["My employer changed my shifts without consulting me and cut my hours.", "I haven't received my final wages since leaving the company."], []),
        "housing": (["The landlord is raising the rent by 40% with two weeks' notice.", "Our building has had no heating for a month and the letting agent ignores us."], []),
        "family": (["My ex wants to move abroad with our daughter and I don't agree.", "We're married and want a legal separation agreement."], []),
        "criminal": (["I received a summons for a speeding offence I don't think I committed.", "My brother is in police custody and hasn't been allowed a phone call."], []),
        "consumer": (["An online shop refuses to refund a sofa that arrived broken.", "The phone company charged me cancellation fees after a price rise."], []),
        "immigration": (["My partner's spouse visa application has been pending for ten months.", "Can I change employers while on a skilled worker visa?"], []),
    },
    "news-topic": {
        "sports": (["The cycling team unveiled its squad for the mountain stage race.", "Injury forces the star goalkeeper to miss the cup final."], []),
        "politics": (["The senate confirmed the new interior minister after a tense hearing.", "Local councillors voted to delay the new transport levy."], []),
        "business": (["The airline reported a quarterly loss as fuel costs climbed.", "Start-up funding fell sharply in the third quarter, investors say."], []),
        "technology": (["The messaging app adds end-to-end encryption to group calls.", "A new laptop line uses a chip designed in-house."], []),
        "health": (["Hospitals trial a shorter waiting list system for hip operations.", "Researchers link air pollution to higher asthma rates in children."], []),
        "entertainment": (["The streaming platform renewed the fantasy drama for two more seasons.", "Tickets for the stadium concert sold out in six minutes."], []),
    },
    "eng-ci": {
        "compile_error": (["error: expected ';' before '}' token at src/buffer.c:211", "Type error: Argument of type 'string' is not assignable to parameter of type 'number'."], []),
        "test_failure": (["AssertionError: expected [1, 2, 3] to deeply equal [1, 3, 2] (test/sort.spec.js)", "1 failing: 'applies coupon' - expected 90 to equal 81"], []),
        "dependency": (["pip: ResolutionImpossible: requests 2.31 depends on urllib3<3, but you have urllib3 3.0", "yarn install: 404 Not Found for @internal/ui-kit@4.2.0"], []),
        "timeout": (["Job failed: runner system failure, could not start container", "Step 'Install' killed after 120 minutes without output"], []),
        "lint": (["ruff: F401 'os' imported but unused (app/main.py:3)", "gofmt: the following files are not formatted: handlers.go"], []),
    },
    "ecom-aspect": {
        "product_quality": (["The blender's blade wobbles and the jug leaks from the base.", "Battery barely lasts two hours, nowhere near the advertised ten."], []),
        "delivery": (["Courier came at 7am without warning and left it with a stranger.", "Two separate parcels, one arrived a week after the other."], []),
        "customer_service": (["The chat agent promised a callback that never happened.", "Staff in the returns team were patient and explained everything."], []),
        "price": (["Great deal in the sale, would not pay full price though.", "Overpriced compared to similar lamps."], []),
        "size_fit": (["Waist fits but the legs are very short.", "Ordered my usual size and it's huge on me."], []),
    },
    "mod-tox": {
        "0": (["Happy birthday {name}! Have a great day.", "Can someone explain how the scoring works?", "Nice photo, where was it taken?"], []),
        "1": (["This is the most boring thread ever.", "Nobody asked for your life story, mate.", "Pretty lazy answer tbh."], []),
        "2": (["You're a complete fool and your posts are garbage.", "What an absolute clown, learn to read."], []),
        "3": (["I hope something terrible happens to you and your family, you disgusting scum.", "Crawl back into your hole and rot, you worthless vermin."], []),
    },
    "sales-lead": {
        "0": (["Not relevant for us, we're a sole trader.", "Stop calling me please, we're not interested."], []),
        "1": (["Saw your ad, what kind of companies use this?", "Do you have case studies in retail?"], []),
        "2": (["We shortlisted you and two others; can you join a call with our IT lead on {day}?", "Please send a quote for 25 seats so we can compare."], []),
        "3": (["Purchase approved. Who should our procurement team send the PO to?", "Let's go ahead with the annual plan. Can we start onboarding Monday?"], []),
    },
    "sup-churn": {
        "none": (["Renewing for another year, please send the invoice.", "Your new feature saved us hours this week, thanks!"], []),
        "low": (["The mobile app is a bit clunky, but we use the desktop version anyway."], []),
        "medium": (["We're reviewing all our subscriptions to cut costs and yours is on the list."], []),
        "high": (["Please close our account at the end of the month, we've moved everything elsewhere."], []),
    },
    "ops-sev": {
        "0": (["Weekly dependency scan found no new vulnerabilities.", "Log rotation completed; archive size slightly larger than last week."], []),
        "1": (["The CI cache is cold, builds take five minutes longer today.", "Internal status page shows stale data; customers don't see it."], []),
        "2": (["Search results are missing for about a third of queries in the EU region.", "Push notifications delayed by up to an hour for Android users."], []),
        "3": (["Ransomware note found on the file servers, files are encrypted.", "Every API request returns 500 since the last deploy; all clients are down."], []),
    },
    "sup-tone": {
        "calm": (["Please find attached the signed form. Let me know if anything else is needed."], []),
        "frustrated": (["I've explained this twice already. Could someone please read the earlier messages?"], []),
        "angry": (["I'm sick of your excuses. Refund me today or I'm taking this to the ombudsman!"], []),
        "appreciative": (["You went above and beyond, thank you so much for sorting it on a Sunday."], []),
        "confused": (["Wait, do I pay for each user or for the whole team? The pricing page is unclear to me."], []),
    },
    "med-triage": {
        "emergency": (["She's having a seizure that has lasted more than five minutes.", "He fell from a ladder, hit his head and is now confused and vomiting."], []),
        "urgent_care": (["I've had bad pain in my lower right tummy since this morning and it's getting worse.", "My child has a rash and a temperature of 39 but is drinking fine."], []),
        "primary_care": (["I'd like a check-up about my cholesterol results.", "My heartburn has come back most evenings for a few weeks."], []),
        "self_care": (["I have a mild headache after a long day at the screen.", "My lips are a bit chapped from the cold weather."], []),
    },
    "ops-route": {
        "database": (["Autovacuum hasn't run on the events table for 3 days; table bloat is 60%.", "Replica {host} is refusing reads: 'recovery conflict with snapshot'."], []),
        "network": (["Intermittent TLS handshake timeouts at the edge proxy for all services.", "Latency between regions jumped from 80ms to 900ms."], []),
        "storage": (["Object storage bucket quota reached; uploads failing with 'quota exceeded'.", "Backup volume snapshot failed: no free extents on the storage pool."], []),
        "application": (["Login service throws 'undefined is not a function' after the frontend deploy.", "Memory leak in the PDF renderer: pods restart every 20 minutes."], []),
        "security": (["Multiple logins to the admin panel from a country we don't operate in.", "Antivirus quarantined a web shell in the uploads directory on {host}."], []),
    },
    "mod-policy": {
        "none": (["Anyone up for a pickup football game in the park on {day}?", "The recipe needs more salt, otherwise excellent."], []),
        "harassment": (["Everyone go flood {name}'s inbox and tell them how ugly and pathetic they are."], []),
        "spam": (["WIN AN IPHONE!!! Just share this post and click the link to claim your prize!!!"], []),
    },
}


def apply(families):
    by_id = {f.id: f for f in families}
    for fid, labs in EXTRA.items():
        fam = by_id.get(fid)
        if fam is None:
            continue
        for lab in fam.labels:
            if lab.key in labs:
                easy, boundary = labs[lab.key]
                lab.easy = lab.easy + [e for e in easy if e not in lab.easy]
                lab.boundary = lab.boundary + [b for b in boundary if b not in lab.boundary]


# ------------------------------------------------------------------ never-gold distractor options (name, description)
DISTRACTORS = {
    "sup-dept": [("sales inquiry", "Prospects asking about buying for the first time"), ("press and media", "Journalists and interview requests"),
                 ("partnerships", "Proposals to partner or integrate as a business"), ("careers", "Job applications and questions about working here"),
                 ("legal requests", "Subpoenas, court orders and law-enforcement requests"), ("accessibility", "Requests for accessible formats or accommodations")],
    "mod-policy": [("copyright infringement", "Sharing pirated or copyrighted material"), ("impersonation", "Pretending to be another person or brand"),
                   ("misinformation", "False claims about elections or public health"), ("sexual content", "Explicit sexual material")],
    "sec-alert": [("ddos", "Volumetric traffic flood against a public service"), ("physical security", "Badge, door or on-site security events"),
                  ("lost device", "A company laptop or phone reported lost or stolen")],
    "ops-route": [("facilities", "Office power, HVAC and building issues"), ("billing platform", "Invoicing and payment provider integrations"),
                  ("mobile release", "App store submissions and mobile builds")],
    "fin-expcat": [("marketing", "Ads, sponsorships and promotional material"), ("legal fees", "Lawyers and legal services"), ("rent", "Office rent and leases"),
                   ("utilities", "Electricity, water and internet for the office")],
    "fin-doctype": [("bank statement", "Summary of account transactions from a bank"), ("contract", "Signed agreement setting terms between parties"),
                    ("tax return", "Filing submitted to the tax authority")],
    "legal-area": [("tax law", "Disputes with the tax authority"), ("intellectual property", "Patents, trademarks and copyright"), ("maritime law", "Shipping and sea matters"),
                   ("environmental law", "Pollution and environmental permits")],
    "hr-case": [("facilities", "Desks, parking and building access"), ("IT equipment", "Laptops, phones and accounts"), ("travel booking", "Booking trips for work")],
    "news-topic": [("weather", "Forecasts and storms"), ("travel", "Destinations and tourism"), ("food", "Recipes and restaurants"), ("real estate", "Housing market and property"),
                   ("fashion", "Clothing trends and designers"), ("obituaries", "Deaths and tributes")],
    "bot-intent": [("store locator", "Find a shop near me"), ("gift cards", "Buying or redeeming gift cards"), ("newsletter signup", "Subscribe to emails"),
                   ("job application", "Apply to work at the company")],
    "mkt-listing": [("alcohol", "Beer, wine and spirits"), ("tobacco", "Cigarettes and vaping products"), ("tickets", "Event tickets resale"), ("recalled products", "Items under a safety recall")],
    "ins-claim": [("life", "Death benefit claims"), ("business liability", "Claims against a business by third parties"), ("boat", "Boats and watercraft")],
}

# ------------------------------------------------------------------ label-neutral filler paragraphs (lengthen some states)
FILLER_SUPPORT = [
    "A bit of background: our team is {n} people spread over two offices, and most of us use your product daily for planning and reporting. I've been the account admin since we signed up, so questions usually come through me.",
    "For your records, I'm writing from my work address. My colleague {name} is copied on this message and can answer if I'm unavailable next week; we share responsibility for our tools.",
    "I already looked through your help centre and the community forum before writing, and I read the most relevant articles, but I couldn't find anything that matched my situation exactly.",
    "Our company uses a fairly standard setup: laptops on the latest operating system, a couple of tablets for the warehouse, and the usual browsers. Nothing unusual as far as I know.",
    "In case it matters, we are based in {city} and most of our team works from 9 to 5 local time, so replies during those hours are easiest for us to act on.",
    "This email and any attachments are confidential and intended solely for the addressee. If you have received it in error, please notify the sender and delete it.",
]
FILLER_SUPPORT += [
    "-----Original message-----\nFrom: Customer Care\nSent: {day}\nSubject: Your request\n\nThank you for reaching out to us. We have received your message and a member of our team will review it as soon as possible. "
    "Our typical response time is one to two business days. In the meantime, you may find answers to common questions in our help centre, which is updated regularly. "
    "Please do not reply with any passwords or full card numbers. Kind regards, The Customer Care Team",
    "A note on how we work: I coordinate a small operations team and we review our tools once a quarter. We keep a shared document with notes about every vendor we use, "
    "including contact points, contract dates and who is responsible internally. I'm adding this conversation to that document so that whoever picks it up later has the full picture. "
    "If there is a ticket number, please include it in your reply so I can file it correctly.",
    "I also want to mention that I have always found your team friendly in the past, and I appreciate the time you take to read long messages like this one. "
    "I try to include as much detail as possible so that we don't need several rounds of questions. If anything is unclear, just ask and I'll reply the same day if I can.",
]

FILLER_LEGAL = [
    "To explain a little more about my circumstances: I work full-time, I have two children at primary school, and my schedule is quite tight during the week. "
    "I would prefer a phone consultation rather than coming to the office if that is possible. I am also trying to understand the likely costs before committing, "
    "so any indication of your fees or whether there is a free first meeting would be very helpful.",
    "Some background about me: I'm {nn} years old, I live in {city}, and I've never needed a lawyer before, so I'm not familiar with how this works or what it costs.",
    "I found your firm through a friend who said you were helpful with a question she had last year. I'd appreciate knowing whether you can take this on and what the first step would be.",
    "I have kept copies of the relevant letters and emails and can send them over. I'm available for a call most weekday evenings.",
]
FILLER_HR = [
    "For context, I've been in my current role for {n} years and I work mostly from the {city} office, with one or two days a week at home.",
    "I checked the intranet and the employee handbook first, but the pages I found seemed out of date, so I thought it best to ask directly.",
    "No rush on the reply within the day; I just want to make sure this is logged with the right team. Happy to provide any forms or documents needed.",
]
FILLER_CLAIM = [
    "I'd like to explain the circumstances fully so that the claim can be assessed without delay. I have been a policyholder with you for a number of years, "
    "I have always paid my premiums on time, and I have not made a claim in that period. I have gathered the documents I think you will need, including receipts, "
    "photographs and a short written timeline, and I can upload them to the portal or send them by post, whichever you prefer.",
    "I've held this policy for several years and this is my first claim. I have receipts and photos and can provide anything else you need.",
    "Please let me know which forms I need to fill in and where to send the documents. I'm reachable through the portal most days.",
    "I'm not sure if I'm contacting the right department, so please forward this if needed. I've tried to include all the details I have.",
]
FILLER_DOC = [
    "This document was generated electronically and is valid without a signature. Please retain it for your records.",
    "{company} is registered in {city}. Registered office and company details are available on request. All amounts are shown in the stated currency.",
    "Questions about this document can be directed to our accounts team via the usual channels. Please quote the reference number in all correspondence.",
]
FILLER_LEAD = [
    "About us: we're a mid-sized company in {city} working in logistics and distribution, with teams in operations, finance and customer service.",
    "I'm the operations manager and I usually handle tooling questions for our department, alongside a colleague in IT.",
]

FILLER_MED = [
    "Before I describe what's happening, a few details that the nurse usually asks for: I live with my partner, I work in an office, I exercise a couple of times a week, "
    "and I have no known allergies to medicines. My last blood test, about six months ago, was normal according to the letter I received. "
    "I'm writing rather than calling because the phone line was busy.",
    "Some background: I'm {nn} years old, I don't smoke, and apart from vitamins I don't take any regular medication. I had my appendix out as a teenager but otherwise no operations.",
    "I'm writing on behalf of my family member, who is sitting next to me. I've tried to describe everything as accurately as I can.",
    "I'm registered with this practice and my details should be on file. I was last seen by a doctor here about a year ago for a routine check.",
]

FILLERS = {"med-triage": FILLER_MED, "sup-dept": FILLER_SUPPORT, "legal-area": FILLER_LEGAL, "hr-case": FILLER_HR, "ins-claim": FILLER_CLAIM, "fin-doctype": FILLER_DOC,
           "sales-lead": FILLER_LEAD, "bot-intent": FILLER_SUPPORT[1:5], "sched-intent": FILLER_SUPPORT[1:3] + FILLER_SUPPORT[5:]}


def apply_extras(families):
    by_id = {f.id: f for f in families}
    for fid, d in DISTRACTORS.items():
        if fid in by_id:
            by_id[fid].distractors = d
    for fid, d in FILLERS.items():
        if fid in by_id:
            by_id[fid].filler = d


# ------------------------------------------------------------------ label-consistent detail sentences (0-2 appended to easy/boundary states)
DETAILS = {
    "sup-dept": {
        "billing": ["The charge shows on my statement dated {date}.", "My account is on the {plan} plan, billed monthly.", "I've attached a screenshot of the bank statement line.",
                    "The reference on the transaction starts with INV.", "We pay by company card, the one ending in 0447."],
        "technical": ["I've tried clearing the cache and a different browser.", "Restarting the device didn't change anything.", "It started right after the update on {day}.",
                      "Colleagues on the same network see the same thing.", "I can send logs or a screen recording if useful."],
        "account_access": ["I'm using the same email address I signed up with.", "I've checked caps lock and tried typing the password manually.",
                           "The last time I was able to sign in was on {day}.", "I've already requested three reset emails today."],
        "shipping": ["The order confirmation number is {order}.", "The tracking page was last updated on {date}.", "I paid for standard delivery.",
                     "The courier listed is ParcelNet."],
        "cancellation": ["Our renewal date is {date}.", "Please send written confirmation once it's done.", "We're on the {plan} plan with {n} seats.",
                         "I'm the account owner, so I'm authorised to make this request."],
        "feedback": ["Happy to join a user interview if that helps.", "I use it mostly on a tablet.", "A few colleagues mentioned the same idea."],
    },
    "legal-area": {
        "employment": ["I worked there for {n} years on a permanent contract.", "HR hasn't replied to my emails since.", "I still have my contract and payslips."],
        "housing": ["I've rented the flat for {n} years.", "The tenancy agreement is in my name only.", "I've always paid the rent on time."],
        "family": ["We have two children, aged {n} and {nn}.", "We married {nn} years ago.", "We've tried mediation once already."],
        "criminal": ["I have never been in trouble with the police before.", "I was given a charge sheet at the station.", "The hearing is at the magistrates' court."],
        "consumer": ["I paid by credit card.", "I have the receipt and the written order.", "I've complained to the company twice in writing."],
        "immigration": ["I've lived here for {n} years.", "My passport is valid until next year.", "I have a letter from the Home Office."],
    },
    "hr-case": {
        "leave": ["My manager is aware and has no objection.", "I have {n} days of annual leave left this year."],
        "payroll": ["I've attached the payslip.", "The difference is about {amount}."],
        "benefits": ["I joined the scheme when I started.", "I couldn't find the form on the intranet."],
        "complaint": ["This has happened several times over the past month.", "Another colleague witnessed it."],
        "recruiting": ["The role would report to me.", "Budget for the position is already approved."],
    },
    "med-triage": {
        "emergency": ["It started suddenly a few minutes ago.", "This has never happened before."],
        "urgent_care": ["It's been getting worse since this morning.", "Painkillers haven't helped much."],
        "primary_care": ["It isn't getting worse, it just hasn't gone away.", "I can come in any day next week."],
        "self_care": ["Otherwise I feel completely fine.", "I can still work and sleep normally."],
    },
    "ins-claim": {
        "motor": ["The car is a {n}-year-old hatchback.", "I have the other driver's details."],
        "home": ["We've lived in the house for {n} years.", "A contractor has already given a quote for repairs."],
        "travel": ["The trip was booked through an agency.", "I have the boarding passes and receipts."],
        "pet": ["She is {n} years old and otherwise healthy.", "The vet's invoice is attached."],
        "health": ["My GP referred me.", "I have the invoice from the clinic."],
    },
}


def apply_details(families):
    by_id = {f.id: f for f in families}
    for fid, labs in DETAILS.items():
        fam = by_id.get(fid)
        if fam is None:
            continue
        for lab in fam.labels:
            lab.details = labs.get(lab.key, [])
