"""Shared task definitions (English side) for the multilingual corpus.

Each task names: type, domain, option keys (choice) or number of levels (score),
English instruction paraphrases, English option descriptions / noul criteria.
Per-language text (states, native instructions, native descriptions) lives in
lang_*.py modules.
"""

TASKS = {
    # ---------------------------------------------------------------- support
    "support_department": dict(
        type="choice", domain="support_routing", bank="support", attr="dept",
        keys=["billing", "technical", "account_access", "shipping", "cancellation"],
        en=["Route this customer message to the right department.",
            "Which queue does this ticket belong in?"],
        en_desc={
            "billing": "Charges, invoices, refunds, payment methods",
            "technical": "Bugs, errors, crashes, something not working in the product",
            "account_access": "Login, password, two-factor, locked or hacked account",
            "shipping": "Delivery, tracking, lost or damaged parcels",
            "cancellation": "The customer wants to end a subscription or close the account",
        },
    ),
    "support_urgency": dict(
        type="score", domain="support_triage", bank="support", attr="urg", levels=4,
        en=["How urgent is this ticket?",
            "Rate the urgency of the customer's request.",
            "How quickly does support need to act on this message?"],
        en_desc=["No time pressure; informational or whenever convenient",
                 "Should be handled soon, but nothing is blocked",
                 "Urgent: the customer is blocked or has a near deadline",
                 "Critical: outage, money being lost or a deadline today"],
    ),
    "support_tone": dict(
        type="score", domain="support_sentiment", bank="support", attr="tone", levels=3,
        en=["How upset is the customer?",
            "Rate the emotional tone of the customer's message.",
            "Score the customer's level of irritation."],
        en_desc=["Calm and neutral, simply describing the situation",
                 "Annoyed or disappointed but still polite",
                 "Angry, hostile or threatening"],
    ),
    "support_is_billing": dict(
        type="noul", domain="support_routing", bank="support", attr="dept", pred="billing",
        en=["Is this ticket about a payment, charge, refund or invoice?",
            "The customer's issue concerns money: a charge, a refund or an invoice."],
        en_crit={"true": "The main issue is a charge, refund, invoice or payment method",
                 "false": "The main issue is something else"},
    ),
    "support_wants_cancel": dict(
        type="noul", domain="support_retention", bank="support", attr="dept", pred="cancellation",
        en=["Does the customer want to cancel their subscription or close their account?",
            "The customer is asking to end the service."],
        en_crit={"true": "Clear request to cancel, unsubscribe or close the account",
                 "false": "No request to end the service"},
    ),
    "conversation_resolved": dict(
        type="noul", domain="support_conversation", bank="resolved",
        en=["Was the customer's problem solved by the end of the conversation?",
            "By the last message, the customer's issue is resolved."],
        en_crit={"true": "The customer confirms things work now",
                 "false": "The problem persists or the customer is still waiting"},
    ),
    # ---------------------------------------------------------------- reviews
    "review_sentiment": dict(
        type="score", domain="ecommerce_reviews", bank="reviews", attr="stars", levels=5,
        en=["What is the overall sentiment of this product review?",
            "Rate how satisfied the reviewer is.",
            "Score the review from very negative to very positive."],
        en_desc=["Very negative: angry, would never buy again",
                 "Mostly negative, with few redeeming points",
                 "Mixed or neutral",
                 "Mostly positive, minor reservations",
                 "Very positive, enthusiastic"],
    ),
    "review_aspect": dict(
        type="choice", domain="ecommerce_reviews", bank="reviews", attr="aspect",
        keys=["product_quality", "delivery", "price_value", "customer_service", "ease_of_use"],
        en=["Which aspect does this review mainly talk about?",
            "What is the main topic of the review?",
            "Tag the review with its primary aspect."],
        en_desc={
            "product_quality": "Materials, durability, defects, how well the product performs",
            "delivery": "Shipping speed, packaging, courier",
            "price_value": "Price, discounts, value for money",
            "customer_service": "Interactions with the seller or support staff",
            "ease_of_use": "Setup, instructions, how easy it is to use",
        },
    ),
    "review_positive": dict(
        type="noul", domain="ecommerce_reviews", bank="reviews", attr="stars", pred="positive",
        en=["Is this review positive overall?",
            "The reviewer is satisfied with the purchase overall."],
        en_crit={"true": "Overall satisfied or enthusiastic",
                 "false": "Overall dissatisfied"},
    ),
    # ------------------------------------------------------------- moderation
    "moderation_label": dict(
        type="choice", domain="content_moderation", bank="moderation", attr="mod",
        keys=["acceptable", "spam", "harassment", "personal_data"],
        en=["Classify this user comment for moderation.",
            "Which moderation category applies to this post?",
            "Label the comment according to the community rules."],
        en_desc={
            "acceptable": "Normal contribution, even if critical or negative",
            "spam": "Advertising, scams, repeated links, unsolicited promotion",
            "harassment": "Insults or threats aimed at a person",
            "personal_data": "Exposes someone's private phone number, address or ID",
        },
    ),
    "moderation_violation": dict(
        type="noul", domain="content_moderation", bank="moderation", attr="mod", pred="violation",
        en=["Does this comment break the community rules (spam, harassment or doxxing)?",
            "Should this post be removed by a moderator?"],
        en_crit={"true": "Spam, personal attacks or someone's private data",
                 "false": "An acceptable post, even if negative"},
    ),
    # ----------------------------------------------------------------- finance
    "expense_category": dict(
        type="choice", domain="expenses", bank="expense", attr="cat",
        keys=["travel", "meals", "software", "office_supplies", "training"],
        en=["Which accounting category fits this expense?",
            "Categorise this expense line.",
            "Assign the expense to a category."],
        en_desc={
            "travel": "Transport and accommodation: flights, trains, taxis, hotels",
            "meals": "Restaurants, food and drinks, client lunches",
            "software": "Software licences, SaaS subscriptions, cloud services",
            "office_supplies": "Paper, printer ink, small office equipment",
            "training": "Courses, conferences, certifications, books for learning",
        },
    ),
    "expense_over_limit": dict(
        type="noul", domain="expenses", bank="expense_limit",
        en=["Does the amount of this expense exceed `policy.max_amount`?",
            "Is the claimed amount above the limit given in `policy`?"],
        en_crit={"true": "Amount strictly greater than the limit",
                 "false": "Amount equal to or below the limit"},
    ),
    "phishing_detect": dict(
        type="noul", domain="fraud_security", bank="phishing", attr="phish", pred=True,
        en=["Is this message a phishing or scam attempt?",
            "This message tries to trick the recipient into giving credentials, money or personal data."],
        en_crit={"true": "Fraudulent: fake urgency, suspicious link, asks for secrets or payment",
                 "false": "Legitimate notification or normal message"},
    ),
    # ---------------------------------------------------------------------- IT
    "alert_severity": dict(
        type="score", domain="it_alerts", bank="alerts", attr="sev", levels=4,
        en=["How severe is this monitoring alert?",
            "Assign a severity level to the alert."],
        en_desc=["Informational, no action needed",
                 "Warning: degradation or risk, should be looked at",
                 "Error: a feature is failing for some users",
                 "Critical: service down or data loss, wake someone up"],
    ),
    # ---------------------------------------------------------------------- HR
    "hr_routing": dict(
        type="choice", domain="hr", bank="hr", attr="hr",
        keys=["leave_request", "payroll", "workplace_complaint", "resignation", "benefits"],
        en=["Which HR process does this employee message belong to?",
            "Route this message to the right HR workflow.",
            "What type of HR request is this?"],
        en_desc={
            "leave_request": "Holidays, sick leave, parental leave, time off",
            "payroll": "Salary amount, payslip errors, overtime payment",
            "workplace_complaint": "Conflict, harassment or unfair treatment at work",
            "resignation": "The employee announces they are leaving the company",
            "benefits": "Health insurance, meal vouchers, pension, perks",
        },
    ),
    # ----------------------------------------------------------------- medical
    "triage_urgency": dict(
        type="score", domain="medical_triage", bank="triage", attr="tri", levels=4,
        en=["How urgently does this patient need care?",
            "Triage this patient message by urgency.",
            "Assign a triage level to the message sent to the clinic."],
        en_desc=["Self-care or general advice is enough",
                 "Routine appointment in the coming days",
                 "Should be seen today",
                 "Emergency: call an ambulance / go to the ER now"],
    ),
    # --------------------------------------------------------------------- RAG
    "rag_relevance": dict(
        type="score", domain="rag_relevance", bank="rag", levels=3,
        en=["How relevant is this passage to the query in `query`?",
            "Does the passage answer the user's question `query`?"],
        en_plain=["How relevant is the passage to the query?",
                  "Rate how well `passage` answers `query`."],
        en_desc=["Irrelevant: about something else",
                 "Related topic, but does not answer the question",
                 "Directly answers the question"],
    ),
    # ------------------------------------------------------------------- legal
    "legal_area": dict(
        type="choice", domain="legal_triage", bank="legal", attr="area",
        keys=["employment", "housing", "family", "consumer", "criminal"],
        en=["Which area of law does this enquiry belong to?",
            "Route this request to the right legal team.",
            "Classify the client's legal problem."],
        en_desc={
            "employment": "Work contracts, dismissal, unpaid wages",
            "housing": "Renting, landlords, deposits, eviction",
            "family": "Divorce, custody, child support, inheritance within the family",
            "consumer": "Faulty purchases, warranties, refunds from sellers",
            "criminal": "Arrests, charges, court cases brought by the state",
        },
    ),
    # --------------------------------------------------------------- documents
    "document_type": dict(
        type="choice", domain="invoices", bank="docs", attr="doc",
        keys=["invoice", "receipt", "credit_note", "payment_reminder", "quote"],
        en=["What kind of accounting document is this?",
            "Classify this scanned document.",
            "Identify the document type for the bookkeeping inbox."],
        en_desc={
            "invoice": "Requests payment for goods or services, with a due date",
            "receipt": "Confirms a payment that has already been made",
            "credit_note": "Reduces or cancels an earlier invoice",
            "payment_reminder": "Chases an invoice that is overdue",
            "quote": "Price offer before any order; nothing is owed yet",
        },
    ),
}

OTHER_KEY_DESC = {"en": "None of the above"}
