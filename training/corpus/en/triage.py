"""Medical triage, legal intake and HR case families."""
from common import Family, Label, wrap_message, fill, person

L = Label


def wrap_patient(rng, text, key=None):
    r = rng.random()
    if r < 0.4:
        return text
    if r < 0.75:
        return {"age": rng.randint(19, 84), "sex": rng.choice(["F", "M"]), "channel": rng.choice(["nurse_line", "portal_message", "chat"]),
                "message": text}
    return [{"role": "assistant", "content": "Nurse line. What symptoms are you having?"}, {"role": "user", "content": text}]


MED = Family(
    id="med-triage", domain="medical_triage", wrap=wrap_patient, n_choice=7, noul_per_label=1, items_per_task=24,
    choice_q=["What level of care does this patient need?", "Triage the patient message.", "Where should this patient be directed?",
              "Assign a care pathway based on the described symptoms."],
    context=["I have no known allergies.", "I am registered at this practice.", "I don't smoke."],
    labels=[
        L("emergency", ["emergency", "call emergency services", "ER now"], ["Life-threatening: call an ambulance or go to the ER now",
                                                                             "Immediate emergency care"],
          nq=["Does this patient need emergency care right now?"],
          easy=["My father has crushing chest pain spreading to his left arm and he is sweating heavily.",
                "My wife suddenly can't move her right arm and her speech is slurred, it started ten minutes ago.",
                "My son swallowed something and now he can't breathe properly, his lips are turning blue.",
                "I was stung by a bee and my throat is swelling, I can hardly breathe.",
                "He collapsed and isn't responding, but he is breathing."],
          boundary=["I have a sudden, extremely severe headache, the worst of my life, that came on in seconds.",
                    "I'm 34 weeks pregnant and bleeding heavily."],
          decoy=[("self_care", "It's probably nothing and I don't want to waste anyone's time, but my chest has been tight and painful for an hour and I feel faint.")]),
        L("urgent_care", ["urgent care", "same-day appointment", "see a doctor today"], ["Needs to be seen today but not life-threatening",
                                                                                        "Same-day clinical assessment"],
          nq=["Should this patient be seen by a clinician today?"],
          easy=["I twisted my ankle playing football, it's very swollen and I can barely walk on it.",
                "I've had a fever of 39.5 for two days and a painful burning when I pee, now my back hurts on one side.",
                "I cut my hand on a knife, the bleeding has stopped with pressure but the wound is gaping.",
                "My toddler has had a high fever since this morning and is pulling at his ear, crying a lot."],
          boundary=["My eye has been red and painful since this morning and light hurts it.",],
          decoy=[("emergency", "No, he's breathing fine and is alert, no chest pain at all. He fell off his bike and his wrist looks bent and is very painful.")]),
        L("primary_care", ["GP appointment", "primary care", "routine appointment"], ["Book a routine appointment in the coming days/weeks",
                                                                                      "Non-urgent doctor visit"],
          nq=["Is a routine GP appointment the right level of care?"],
          easy=["I've had a dry cough for about four weeks now. No fever, I feel fine otherwise.",
                "I'd like to discuss changing my contraception.", "There is a mole on my back that seems to have grown over the last few months.",
                "My knee aches after running for the past couple of months."],
          boundary=["I keep feeling tired all the time for two months, even after sleeping well.",]),
        L("self_care", ["self-care", "home care", "pharmacy advice"], ["Can be managed at home or with pharmacy advice", "Minor, self-limiting problem"],
          nq=["Can this be managed at home without seeing a doctor?"],
          easy=["I have a runny nose and a mild sore throat since yesterday, no fever.", "I got a small paper cut on my finger, it stopped bleeding.",
                "Mild sunburn on my shoulders after the beach.", "I have a bit of heartburn after a big dinner, it usually goes away."],
          decoy=[("emergency", "Not an emergency, no breathing trouble or chest pain, I just have a mild cold and wondered what to take for the blocked nose.")]),
    ])


LEGAL = Family(
    id="legal-area", domain="legal_triage", wrap=wrap_message, n_choice=8, noul_per_label=1, items_per_task=24,
    choice_q=["Which area of law does this enquiry concern?", "Route the legal enquiry to the right practice group.",
              "What kind of legal matter is this?", "Classify the client's legal issue."],
    labels=[
        L("employment", ["employment law", "employment"], ["Workplace, dismissal, wages, discrimination at work", "Employer-employee disputes"],
          nq=["Is this an employment law matter?"],
          easy=["I was fired the day after I told my manager I was pregnant.", "My employer hasn't paid my overtime for six months.",
                "My contract says I can't work for a competitor for two years. Is that enforceable?", "I was dismissed without any warning or hearing after 8 years."],
          decoy=[("housing", "My employer also provides my flat, but my question is about the job: they cut my salary by 20% without my agreement.")]),
        L("housing", ["housing / tenancy", "landlord and tenant"], ["Renting, eviction, deposits, repairs", "Disputes between landlords and tenants"],
          nq=["Is this a landlord-tenant or housing issue?"],
          easy=["My landlord won't return my deposit even though I left the flat spotless.", "I got an eviction notice giving me only one week to leave.",
                "There's been mould in my rented flat for months and the landlord refuses to fix it.", "My landlord enters the flat without notice when I'm at work."],
          decoy=[("family", "My ex-husband and I split up years ago; that's settled. Now my landlord wants to evict me because I complained about the broken heating.")]),
        L("family", ["family law", "family"], ["Divorce, custody, child support", "Family relationships and separation"],
          nq=["Is this a family law matter?"],
          easy=["My wife and I are separating and we can't agree on who the children live with.", "My ex has stopped paying child support.",
                "I want to file for divorce, what's the process?", "We want to adopt my partner's son from a previous relationship."]),
        L("criminal", ["criminal defence", "criminal law"], ["Arrests, charges, police matters", "Accused of a crime"],
          nq=["Is the person facing a criminal matter?"],
          easy=["I've been charged with drink driving and have a court date next month.", "The police want to interview me about a fight at a bar.",
                "My son was arrested for shoplifting, what happens now?"],
          decoy=[("employment", "It happened at work, but it's not an employment issue: a colleague says I assaulted him and the police have charged me.")]),
        L("consumer", ["consumer / contract", "consumer rights"], ["Faulty goods, services, contracts with businesses", "Consumer disputes with companies"],
          nq=["Is this a consumer or contract dispute with a business?"],
          easy=["The builder took a deposit of {amount} and never started the work.", "I bought a car that broke down a week later and the dealer won't help.",
                "A gym keeps charging me after I cancelled in writing.", "The airline cancelled my flight and refuses compensation."]),
        L("immigration", ["immigration", "visas"], ["Visas, residence permits, citizenship", "Right to live or work in the country"],
          nq=["Is this an immigration or visa matter?"],
          easy=["My work visa expires in two months and my employer won't sponsor the renewal.", "Can my parents join me here on a family visa?",
                "My asylum claim was refused, can I appeal?", "How do I apply for citizenship after five years of residence?"],
          decoy=[("employment", "I'm happy at my job and they treat me well; the issue is that my residence permit was refused and I might have to leave the country.")]),
    ])


HR = Family(
    id="hr-case", domain="hr", wrap=wrap_message, n_choice=7, noul_per_label=1, items_per_task=24,
    choice_q=["What type of HR request is this?", "Route this employee message in the HR system.", "Classify the HR case.",
              "Which HR team should take this?"],
    context=["I'm in the {city} office.", "My employee number is E{nn}{n}.", "My manager is {name}."],
    labels=[
        L("leave", ["leave request", "time off", "absence"], ["Holidays, sick leave, parental leave", "Requests to be absent from work"],
          nq=["Is the employee asking for time off?"],
          easy=["I'd like to book annual leave from {date} for two weeks.", "I'm sick with flu and won't be in for the rest of the week.",
                "My partner is due in {month}; how do I apply for parental leave?", "Can I take an unpaid week off to move house?"],
          decoy=[("payroll", "This isn't about pay. I just need to request three days of compassionate leave for my grandmother's funeral.")]),
        L("payroll", ["payroll", "salary and pay"], ["Salary, payslips, tax, overtime payments", "Pay problems"],
          nq=["Is this a pay or payslip question?"],
          easy=["My payslip for {month} is missing the overtime I worked.", "I was paid less than my contract salary this month.",
                "My tax code looks wrong on my latest payslip.", "When will the annual bonus be paid?"],
          decoy=[("leave", "I took leave in {month}, which was approved and fine. But my salary that month was cut by {amount} and nobody can explain why.")]),
        L("benefits", ["benefits", "perks and insurance"], ["Health insurance, pension, perks", "Employee benefit schemes"],
          nq=["Is this about employee benefits like insurance or pension?"],
          easy=["How do I add my husband to my health insurance?", "Can I increase my pension contribution to 8%?",
                "Is the gym membership discount still available?", "The dental plan rejected my claim; who can I talk to?"]),
        L("complaint", ["grievance", "workplace complaint", "conduct concern"], ["Harassment, bullying, discrimination or misconduct reports",
                                                                                 "Formal complaint about someone's behaviour"],
          nq=["Is the employee reporting harassment, bullying or misconduct?"],
          easy=["My team lead makes comments about my appearance in meetings and it makes me very uncomfortable.",
                "A colleague has been shouting at me and belittling me in front of clients for weeks.",
                "I believe I was passed over for promotion because of my age.", "I saw a manager falsifying expense reports."],
          boundary=["My manager keeps scheduling me for every weekend shift while others never get them; I think it's personal."],
          decoy=[("leave", "I had to take two sick days because of stress, but the reason I'm writing is to formally report that my supervisor keeps insulting me.")]),
        L("recruiting", ["recruiting", "hiring"], ["Job openings, referrals, interviews", "Hiring new people"],
          nq=["Is this about hiring or recruiting?"],
          easy=["I'd like to refer a friend for the data analyst opening.", "Can we open a new position for a junior designer in my team?",
                "When will the candidates for the sales role be interviewed?", "Is the internal job posting for team lead still open?"]),
    ])

FAMILIES = [MED, LEGAL, HR]
