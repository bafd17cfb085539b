# -*- coding: utf-8 -*-
"""Extra hand-authored items appended to the per-language banks (balances triage levels 1-2 and
acceptable moderation posts). Same tuple formats as the lang_*.py modules."""

E, B, D = "easy", "boundary", "decoy"

EXTRA = {
    "fr": {
        "triage": [
            ("Depuis hier, ça brûle quand j'urine, et maintenant j'ai 38,5 °C de fièvre et mal dans le bas du dos, d'un seul côté.", 2, E),
            ("Je me suis tordu la cheville au foot il y a deux heures : elle a beaucoup gonflé et j'arrive à peine à poser le pied.", 2, E),
            ("Je tousse depuis trois semaines, une toux sèche, sans fièvre ; à part ça je me sens bien, mais j'aimerais un avis.", 1, B),
        ],
        "moderation": [
            ("Quelqu'un sait si la médiathèque est ouverte les jours fériés ? Je ne trouve pas l'info sur le site.", "acceptable", E),
            ("Merci pour l'astuce, j'ai essayé hier et ça a parfaitement marché !", "acceptable", E),
        ],
    },
    "es": {
        "triage": [
            ("Desde ayer me escuece al orinar y ahora tengo 38,5 de fiebre y dolor en la parte baja de la espalda, solo de un lado.", 2, E),
            ("Me torcí el tobillo jugando al fútbol hace dos horas: está muy hinchado y casi no puedo apoyar el pie.", 2, E),
            ("Llevo tres semanas con tos seca, sin fiebre; por lo demás estoy bien, pero quisiera que me vieran.", 1, B),
        ],
        "moderation": [
            ("¿Alguien sabe si la biblioteca abre los festivos? No encuentro la información en la web.", "acceptable", E),
            ("Gracias por el truco, lo probé ayer y funcionó perfectamente.", "acceptable", E),
        ],
    },
    "pt": {
        "triage": [
            ("Desde ontem sinto ardência ao urinar e agora estou com 38,5 °C de febre e dor na parte de baixo das costas, só de um lado.", 2, E),
            ("Torci o tornozelo jogando bola há duas horas: inchou muito e mal consigo apoiar o pé.", 2, E),
            ("Estou com tosse seca há três semanas, sem febre; fora isso estou bem, mas queria uma avaliação.", 1, B),
        ],
        "moderation": [
            ("Alguém sabe se a biblioteca abre nos feriados? Não achei a informação no site.", "acceptable", E),
            ("Valeu pela dica, testei ontem e funcionou direitinho!", "acceptable", E),
        ],
    },
    "it": {
        "triage": [
            ("Da ieri ho bruciore quando urino e adesso ho 38,5 di febbre e dolore nella parte bassa della schiena, solo da un lato.", 2, E),
            ("Mi sono storto la caviglia giocando a calcio due ore fa: è molto gonfia e riesco a malapena ad appoggiare il piede.", 2, E),
            ("Ho la tosse secca da tre settimane, senza febbre; per il resto sto bene, ma vorrei un parere.", 1, B),
        ],
        "moderation": [
            ("Qualcuno sa se la biblioteca è aperta nei giorni festivi? Sul sito non trovo l'informazione.", "acceptable", E),
            ("Grazie per il consiglio, l'ho provato ieri e ha funzionato alla perfezione!", "acceptable", E),
        ],
    },
    "de": {
        "triage": [
            ("Seit gestern brennt es beim Wasserlassen, jetzt habe ich 38,5 °C Fieber und Schmerzen im unteren Rücken, nur auf einer Seite.", 2, E),
            ("Ich bin vor zwei Stunden beim Fußball umgeknickt: Der Knöchel ist stark geschwollen und ich kann kaum auftreten.", 2, E),
            ("Ich habe seit drei Wochen trockenen Husten, kein Fieber, sonst geht es mir gut – ich hätte das aber gern mal abgeklärt.", 1, B),
        ],
        "moderation": [
            ("Weiß jemand, ob die Bibliothek an Feiertagen geöffnet hat? Auf der Website finde ich nichts dazu.", "acceptable", E),
            ("Danke für den Tipp, hab's gestern ausprobiert und es hat perfekt funktioniert!", "acceptable", E),
        ],
    },
    "nl": {
        "triage": [
            ("Sinds gisteren brandt het bij het plassen en nu heb ik 38,5 graden koorts en pijn onder in mijn rug, aan één kant.", 2, E),
            ("Ik ben twee uur geleden door mijn enkel gegaan bij het voetballen: hij is flink opgezwollen en ik kan er nauwelijks op staan.", 2, E),
            ("Ik hoest al drie weken droog, zonder koorts; verder voel ik me goed, maar ik wil er graag naar laten kijken.", 1, B),
        ],
        "moderation": [
            ("Weet iemand of de bibliotheek op feestdagen open is? Ik kan het niet vinden op de website.", "acceptable", E),
            ("Bedankt voor de tip, gisteren geprobeerd en het werkte perfect!", "acceptable", E),
        ],
    },
    "pl": {
        "triage": [
            ("Od wczoraj piecze mnie przy oddawaniu moczu, a teraz mam 38,5 stopnia gorączki i ból w dole pleców, tylko po jednej stronie.", 2, E),
            ("Dwie godziny temu skręciłem kostkę na boisku: mocno spuchła i ledwo mogę stanąć na nodze.", 2, E),
            ("Od trzech tygodni mam suchy kaszel, bez gorączki; poza tym czuję się dobrze, ale chciałbym, żeby ktoś to sprawdził.", 1, B),
        ],
        "moderation": [
            ("Czy ktoś wie, czy biblioteka jest otwarta w święta? Nie mogę znaleźć tej informacji na stronie.", "acceptable", E),
            ("Dzięki za radę, wypróbowałam wczoraj i zadziałało idealnie!", "acceptable", E),
        ],
    },
    "ru": {
        "triage": [
            ("Со вчерашнего дня жжёт при мочеиспускании, а теперь температура 38,5 и болит поясница с одной стороны.", 2, E),
            ("Два часа назад подвернул ногу на футболе: лодыжка сильно опухла, наступать почти не могу.", 2, E),
            ("Уже три недели сухой кашель, температуры нет, в остальном самочувствие нормальное, но хотелось бы провериться.", 1, B),
        ],
        "moderation": [
            ("Кто-нибудь знает, работает ли библиотека в праздники? На сайте не нашёл информации.", "acceptable", E),
            ("Спасибо за совет, вчера попробовала — сработало идеально!", "acceptable", E),
        ],
    },
    "uk": {
        "triage": [
            ("Від учора пече під час сечовипускання, а тепер температура 38,5 і болить поперек з одного боку.", 2, E),
            ("Дві години тому підвернув ногу на футболі: щиколотка дуже набрякла, ледве можу стати на ногу.", 2, E),
            ("Уже три тижні сухий кашель, температури немає, загалом почуваюся добре, але хотів би провіритися.", 1, B),
        ],
        "moderation": [
            ("Хтось знає, чи працює бібліотека у святкові дні? На сайті не можу знайти інформацію.", "acceptable", E),
            ("Дякую за пораду, учора спробувала — спрацювало ідеально!", "acceptable", E),
        ],
    },
    "ar": {
        "triage": [
            ("منذ أمس أشعر بحرقة عند التبول، والآن حرارتي ٣٨٫٥ وعندي ألم أسفل الظهر في جهة واحدة.", 2, E),
            ("التوى كاحلي أثناء لعب الكرة قبل ساعتين، وهو متورم جدًا ولا أكاد أستطيع الوقوف عليه.", 2, E),
            ("عندي سعال جاف منذ ثلاثة أسابيع دون حرارة، وأشعر أنني بخير عدا ذلك، لكنني أريد أن يفحصني طبيب.", 1, B),
            ("طفلتي عمرها سنة وعندها إسهال منذ الصباح، وما زالت ترضع جيدًا وليس عندها حرارة.", 1, B),
        ],
        "moderation": [
            ("هل يعرف أحد إن كانت المكتبة تفتح أيام العطل الرسمية؟ لم أجد المعلومة على الموقع.", "acceptable", E),
            ("شكرًا على النصيحة، جربتها أمس ونجحت تمامًا!", "acceptable", E),
        ],
    },
    "he": {
        "triage": [
            ("מאתמול שורף לי כשאני משתין, ועכשיו יש לי חום 38.5 וכאב בגב התחתון, רק בצד אחד.", 2, E),
            ("נקעתי את הקרסול בכדורגל לפני שעתיים: הוא נפוח מאוד ואני בקושי מצליח לדרוך עליו.", 2, E),
            ("יש לי שיעול יבש כבר שלושה שבועות, בלי חום; חוץ מזה אני מרגיש טוב, אבל הייתי רוצה שיבדקו.", 1, B),
        ],
        "moderation": [
            ("מישהו יודע אם הספרייה פתוחה בחגים? לא מצאתי את המידע באתר.", "acceptable", E),
            ("תודה על הטיפ, ניסיתי אתמול וזה עבד מושלם!", "acceptable", E),
        ],
    },
    "tr": {
        "triage": [
            ("Dünden beri idrar yaparken yanma var, şimdi de 38,5 ateşim ve belimin bir tarafında ağrı var.", 2, E),
            ("İki saat önce maçta bileğimi burktum: çok şişti ve ayağımın üstüne zor basıyorum.", 2, E),
            ("Üç haftadır kuru öksürüğüm var, ateşim yok; onun dışında iyiyim ama bir baktırmak istiyorum.", 1, B),
        ],
        "moderation": [
            ("Kütüphanenin resmi tatillerde açık olup olmadığını bilen var mı? Sitede bulamadım.", "acceptable", E),
            ("Tavsiye için teşekkürler, dün denedim ve harika çalıştı!", "acceptable", E),
        ],
    },
    "ja": {
        "triage": [
            ("昨日から排尿時にしみるような痛みがあり、今は38.5度の熱と、片側の腰の痛みがあります。", 2, E),
            ("2時間前にサッカーで足首をひねりました。かなり腫れていて、足をつくのもやっとです。", 2, E),
            ("3週間ほど乾いた咳が続いています。熱はなく、ほかは元気ですが、一度診てもらいたいです。", 1, B),
            ("1歳の娘が今朝から下痢をしていますが、ミルクはよく飲んでいて熱もありません。", 1, B),
        ],
        "moderation": [
            ("図書館って祝日も開いているか知っている方いますか？サイトを見ても見つかりませんでした。", "acceptable", E),
            ("教えてもらった方法、昨日試したら完璧にうまくいきました。ありがとうございます！", "acceptable", E),
        ],
    },
    "zh": {
        "triage": [
            ("从昨天开始小便时有烧灼感，现在发烧38.5度，一侧腰也疼。", 2, E),
            ("两个小时前踢球崴了脚，脚踝肿得很厉害，几乎不能着地。", 2, E),
            ("干咳三周了，不发烧，其他都还好，但想找医生看看。", 1, B),
        ],
        "moderation": [
            ("有人知道图书馆节假日开不开门吗？官网上没找到。", "acceptable", E),
            ("谢谢分享的小技巧，我昨天试了一下，效果特别好！", "acceptable", E),
        ],
    },
    "ko": {
        "triage": [
            ("어제부터 소변볼 때 화끈거리고, 지금은 열이 38.5도에 한쪽 허리가 아파요.", 2, E),
            ("두 시간 전에 축구하다가 발목을 삐었는데 많이 붓고 발을 거의 디딜 수가 없어요.", 2, E),
            ("3주째 마른기침이 나요. 열은 없고 다른 데는 괜찮은데 한번 진료를 받아 보고 싶어요.", 1, B),
        ],
        "moderation": [
            ("도서관이 공휴일에도 여는지 아시는 분 계세요? 홈페이지에서 못 찾겠어요.", "acceptable", E),
            ("팁 감사합니다. 어제 해 봤는데 완벽하게 됐어요!", "acceptable", E),
        ],
    },
    "hi": {
        "triage": [
            ("कल से पेशाब करते समय जलन हो रही है, अब 101 डिग्री बुख़ार है और कमर के एक तरफ़ दर्द है।", 2, E),
            ("दो घंटे पहले फ़ुटबॉल खेलते हुए टखना मुड़ गया: बहुत सूज गया है और पैर ज़मीन पर रखना मुश्किल है।", 2, E),
            ("तीन हफ़्ते से सूखी खाँसी है, बुख़ार नहीं है; बाक़ी सब ठीक है, पर एक बार दिखाना चाहता हूँ।", 1, B),
        ],
        "moderation": [
            ("किसी को पता है कि पुस्तकालय छुट्टियों के दिन खुलता है या नहीं? वेबसाइट पर जानकारी नहीं मिली।", "acceptable", E),
            ("टिप के लिए धन्यवाद, कल आज़माया और बिल्कुल सही काम किया!", "acceptable", E),
        ],
    },
    "vi": {
        "triage": [
            ("Từ hôm qua tôi bị buốt khi đi tiểu, giờ sốt 38,5 độ và đau một bên thắt lưng.", 2, E),
            ("Hai tiếng trước tôi bị lật cổ chân khi đá bóng: sưng to và gần như không đặt chân xuống được.", 2, E),
            ("Tôi ho khan ba tuần nay, không sốt, ngoài ra vẫn khỏe, nhưng muốn đi khám cho yên tâm.", 1, B),
        ],
        "moderation": [
            ("Có ai biết thư viện có mở cửa ngày lễ không? Mình tìm trên trang web mà không thấy.", "acceptable", E),
            ("Cảm ơn mẹo của bạn, hôm qua mình thử rồi, hiệu quả lắm!", "acceptable", E),
        ],
    },
    "id": {
        "triage": [
            ("Sejak kemarin perih saat buang air kecil, sekarang demam 38,5 derajat dan pinggang sebelah sakit.", 2, E),
            ("Dua jam lalu pergelangan kaki saya terkilir waktu main bola: bengkak parah dan hampir tidak bisa dipakai menapak.", 2, E),
            ("Sudah tiga minggu batuk kering, tidak demam; selebihnya sehat, tapi saya ingin diperiksa.", 1, B),
        ],
        "moderation": [
            ("Ada yang tahu perpustakaan buka di hari libur nasional? Saya cari di situsnya tidak ketemu.", "acceptable", E),
            ("Makasih tipsnya, kemarin saya coba dan berhasil banget!", "acceptable", E),
        ],
    },
}

# Additional native instruction paraphrases (appended to each language's `instr` lists).
# Noul tasks also get statement-form instructions, as callers often phrase them that way.
INSTR_EXTRA = {
    "fr": {
        "support_tone": ["Évaluez le ton émotionnel du message du client."],
        "support_is_billing": ["Le problème du client concerne la facturation ou un paiement."],
        "support_wants_cancel": ["Le client demande à mettre fin au service."],
        "conversation_resolved": ["À la fin de l'échange, le problème du client est réglé."],
        "review_aspect": ["Quel est le sujet principal de cet avis client ?"],
        "review_positive": ["L'acheteur est globalement satisfait de son achat."],
        "moderation_label": ["Quelle catégorie de modération s'applique à ce message ?"],
        "moderation_violation": ["Ce message doit-il être supprimé par un modérateur ?"],
        "expense_category": ["Attribuez une catégorie à cette ligne de note de frais."],
        "expense_over_limit": ["Le montant déclaré est-il supérieur au plafond fixé dans `policy` ?"],
        "phishing_detect": ["Ce message cherche à obtenir frauduleusement des identifiants, de l'argent ou des données personnelles."],
        "alert_severity": ["Attribuez un niveau de sévérité à cette alerte."],
        "hr_routing": ["Vers quel processus RH faut-il orienter ce message de salarié ?"],
        "triage_urgency": ["Classez ce message de patient par niveau d'urgence."],
        "rag_relevance": ["Dans quelle mesure ce passage répond-il à `query` ?"],
        "legal_area": ["Orientez cette demande vers le bon pôle juridique."],
        "document_type": ["Classez ce document numérisé pour la comptabilité."],
    },
    "ja": {
        "support_tone": ["お客様のメッセージの感情的なトーンを評価してください。"],
        "support_is_billing": ["お客様の問題は料金・支払い・返金に関するものである。"],
        "support_wants_cancel": ["お客様はサービスの利用終了を求めている。"],
        "conversation_resolved": ["やり取りの最後で、お客様の問題は解決している。"],
        "review_aspect": ["このレビューの主なテーマは何ですか？"],
        "review_positive": ["購入者は全体として購入に満足している。"],
        "moderation_label": ["この投稿に当てはまるモデレーション区分はどれですか？"],
        "moderation_violation": ["この投稿はモデレーターが削除すべきですか？"],
        "expense_category": ["この経費明細に区分を割り当ててください。"],
        "expense_over_limit": ["申請金額は `policy` に定められた上限を上回っていますか？"],
        "phishing_detect": ["このメッセージは、認証情報・金銭・個人情報をだまし取ろうとしている。"],
        "alert_severity": ["このアラートに重大度レベルを割り当ててください。"],
        "hr_routing": ["この社員からのメッセージを適切な人事ワークフローに振り分けてください。"],
        "triage_urgency": ["この患者からのメッセージを緊急度でトリアージしてください。"],
        "rag_relevance": ["この文章は `query` にどの程度答えていますか？"],
        "legal_area": ["この相談を適切な法務チームに振り分けてください。"],
        "document_type": ["このスキャン書類を経理用に分類してください。"],
    },
    "ar": {
        "support_tone": ["قيّم النبرة العاطفية لرسالة العميل."],
        "support_is_billing": ["مشكلة العميل تتعلق بالفوترة أو بعملية دفع."],
        "support_wants_cancel": ["العميل يطلب إنهاء الخدمة."],
        "conversation_resolved": ["في نهاية المحادثة، تكون مشكلة العميل قد حُلّت."],
        "review_aspect": ["ما الموضوع الرئيسي لهذه المراجعة؟"],
        "review_positive": ["المشتري راضٍ عن مشترياته بشكل عام."],
        "moderation_label": ["أي فئة من فئات الإشراف تنطبق على هذا المنشور؟"],
        "moderation_violation": ["هل يجب على المشرف حذف هذا المنشور؟"],
        "expense_category": ["حدّد فئة لبند المصروفات هذا."],
        "expense_over_limit": ["هل المبلغ المطالب به أعلى من الحد المحدد في `policy`؟"],
        "phishing_detect": ["تحاول هذه الرسالة خداع المستلم للحصول على بيانات الدخول أو المال أو البيانات الشخصية."],
        "alert_severity": ["حدّد مستوى خطورة لهذا التنبيه."],
        "hr_routing": ["وجّه رسالة الموظف هذه إلى مسار الموارد البشرية المناسب."],
        "triage_urgency": ["صنّف رسالة المريض هذه حسب درجة الاستعجال."],
        "rag_relevance": ["إلى أي حد يجيب هذا المقطع عن `query`؟"],
        "legal_area": ["وجّه هذا الطلب إلى الفريق القانوني المناسب."],
        "document_type": ["صنّف هذا المستند الممسوح ضوئيًا لقسم المحاسبة."],
    },
    "de": {"phishing_detect": ["Diese Nachricht versucht, an Zugangsdaten, Geld oder persönliche Daten zu gelangen."],
           "review_positive": ["Der Käufer ist mit dem Kauf insgesamt zufrieden."],
           "conversation_resolved": ["Am Ende des Gesprächs ist das Problem des Kunden gelöst."]},
    "es": {"phishing_detect": ["Este mensaje intenta engañar al destinatario para obtener contraseñas, dinero o datos personales."],
           "review_positive": ["El comprador está satisfecho con la compra en general."],
           "conversation_resolved": ["Al final de la conversación, el problema del cliente está resuelto."]},
    "pt": {"phishing_detect": ["Esta mensagem tenta enganar o destinatário para obter senhas, dinheiro ou dados pessoais."],
           "review_positive": ["O comprador está satisfeito com a compra no geral."],
           "conversation_resolved": ["No fim da conversa, o problema do cliente está resolvido."]},
    "it": {"phishing_detect": ["Questo messaggio cerca di sottrarre con l'inganno credenziali, denaro o dati personali."],
           "review_positive": ["L'acquirente è nel complesso soddisfatto dell'acquisto."],
           "conversation_resolved": ["Alla fine della conversazione il problema del cliente è risolto."]},
    "nl": {"phishing_detect": ["Dit bericht probeert de ontvanger inloggegevens, geld of persoonsgegevens afhandig te maken."],
           "review_positive": ["De koper is over het geheel tevreden met de aankoop."],
           "conversation_resolved": ["Aan het eind van het gesprek is het probleem van de klant opgelost."]},
    "pl": {"phishing_detect": ["Ta wiadomość próbuje wyłudzić dane logowania, pieniądze lub dane osobowe."],
           "review_positive": ["Kupujący jest ogólnie zadowolony z zakupu."],
           "conversation_resolved": ["Pod koniec rozmowy problem klienta jest rozwiązany."]},
    "ru": {"phishing_detect": ["Это сообщение пытается выманить у получателя пароли, деньги или личные данные."],
           "review_positive": ["Покупатель в целом доволен покупкой."],
           "conversation_resolved": ["К концу переписки проблема клиента решена."]},
    "uk": {"phishing_detect": ["Це повідомлення намагається виманити в одержувача паролі, гроші чи особисті дані."],
           "review_positive": ["Покупець загалом задоволений покупкою."],
           "conversation_resolved": ["Наприкінці розмови проблему клієнта вирішено."]},
    "he": {"phishing_detect": ["ההודעה מנסה להוציא מהנמען במרמה סיסמאות, כסף או מידע אישי."],
           "review_positive": ["הקונה מרוצה מהרכישה באופן כללי."],
           "conversation_resolved": ["בסוף השיחה הבעיה של הלקוח נפתרה."]},
    "tr": {"phishing_detect": ["Bu mesaj, alıcıyı kandırarak şifre, para ya da kişisel bilgi elde etmeye çalışıyor."],
           "review_positive": ["Alıcı, satın aldığı üründen genel olarak memnun."],
           "conversation_resolved": ["Konuşmanın sonunda müşterinin sorunu çözülmüş durumda."]},
    "zh": {"phishing_detect": ["这条消息企图骗取收件人的密码、钱财或个人信息。"],
           "review_positive": ["买家总体上对这次购买感到满意。"],
           "conversation_resolved": ["对话结束时，客户的问题已经解决。"]},
    "ko": {"phishing_detect": ["이 메시지는 수신자를 속여 비밀번호, 돈 또는 개인정보를 빼내려 한다."],
           "review_positive": ["구매자는 전반적으로 구매에 만족한다."],
           "conversation_resolved": ["대화가 끝날 때 고객의 문제는 해결되어 있다."]},
    "hi": {"phishing_detect": ["यह संदेश धोखे से पासवर्ड, पैसे या निजी जानकारी हासिल करने की कोशिश करता है।"],
           "review_positive": ["ख़रीदार कुल मिलाकर अपनी ख़रीद से संतुष्ट है।"],
           "conversation_resolved": ["बातचीत के अंत तक ग्राहक की समस्या हल हो चुकी है।"]},
    "vi": {"phishing_detect": ["Tin nhắn này tìm cách lừa người nhận để lấy mật khẩu, tiền hoặc thông tin cá nhân."],
           "review_positive": ["Nhìn chung người mua hài lòng với món hàng."],
           "conversation_resolved": ["Đến cuối cuộc trò chuyện, vấn đề của khách đã được giải quyết."]},
    "id": {"phishing_detect": ["Pesan ini mencoba menipu penerima agar memberikan kata sandi, uang, atau data pribadi."],
           "review_positive": ["Pembeli secara umum puas dengan pembeliannya."],
           "conversation_resolved": ["Di akhir percakapan, masalah pelanggan sudah selesai."]},
}

# More scenarios for the three languages that are evaluated specifically (fr, ja, ar).
for _code, _banks in {
    "fr": {
        "support": [
            ("Je n'arrive pas à activer la double authentification : l'application affiche « code invalide » alors que je le recopie tout de suite.", "account_access", 1, 0, E),
            ("Votre dernière mise à jour a supprimé le mode sombre. Franchement, vous auriez pu prévenir.", "technical", 0, 1, B),
            ("J'ai changé de banque : comment mettre à jour mon IBAN pour les prochains prélèvements ?", "billing", 0, 0, E),
            ("On m'a facturé l'option « Premium » que je n'ai jamais demandée. J'exige un remboursement immédiat, sinon je porte plainte.", "billing", None, 2, E),
            ("Le livreur a déposé mon colis chez un voisin que je ne connais pas, à l'autre bout de la rue. Comment je le récupère ?", "shipping", 1, 0, E),
            ("Merci de ne plus renouveler mon abonnement automatiquement : je ne souhaite pas continuer après cette année.", "cancellation", 0, 0, E),
            ("J'ai reçu un e-mail de réinitialisation de mot de passe que je n'ai pas demandé. Quelqu'un essaie-t-il d'accéder à mon compte ?", "account_access", 1, 0, E),
        ],
        "reviews": [
            ("Taille beaucoup trop petite par rapport au guide des tailles, j'ai dû la renvoyer. Le tissu est pourtant agréable.", 1, None, B),
            ("Le vendeur m'a recontacté de lui-même pour vérifier que tout s'était bien passé. Rare et appréciable !", 4, "customer_service", E),
            ("Trois semaines pour recevoir une simple coque de téléphone, alors que la livraison était annoncée en 48 h. Inadmissible.", 0, "delivery", E),
            ("À ce prix-là, je ne m'attendais pas à grand-chose, et c'est exactement ce que j'ai eu : ça marche, sans plus.", 2, "price_value", B),
            ("Interface claire, réglages intuitifs, et la notice tient sur une page. Parfait pour quelqu'un qui n'est pas à l'aise avec la technologie.", 4, "ease_of_use", E),
        ],
        "phishing": [
            ("Votre abonnement de streaming n'a pas pu être renouvelé. Mettez à jour vos informations de paiement sous 12 h pour éviter la suspension : http://streaming-paiement-maj.com", True, E),
            ("Coucou maman, j'ai cassé mon téléphone, c'est mon nouveau numéro. Tu peux me faire un virement de 450 € ? Je t'explique plus tard.", True, E),
            ("Votre colis sera livré demain entre 9 h et 13 h. Vous pouvez suivre la livraison dans l'application du transporteur.", False, B),
            ("Le service informatique mettra à jour les postes vendredi à 18 h. Aucune action n'est requise de votre part ; ne communiquez jamais votre mot de passe.", False, D),
        ],
        "alerts": [
            ("Le nœud worker-3 a redémarré automatiquement après une mise à jour du noyau ; tous les services sont revenus à la normale.", 0, B),
            ("La file d'attente des e-mails sortants dépasse 5 000 messages et continue de grossir.", 1, B),
            ("Depuis la dernière version, la connexion à l'application mobile échoue pour les utilisateurs Android.", 2, E),
        ],
    },
    "ja": {
        "support": [
            ("二段階認証を設定しようとすると、コードをすぐに入力しても「無効なコード」と表示されます。", "account_access", 1, 0, E),
            ("アップデートでダークモードがなくなってしまいました。事前に告知してほしかったです。", "technical", 0, 1, B),
            ("引き落とし口座を変更したいのですが、どこから手続きできますか。", "billing", 0, 0, E),
            ("申し込んでいない「プレミアム」オプションの料金が請求されています。至急返金と説明をお願いします。", "billing", None, 1, E),
            ("荷物が、面識のない近所の家に預けられていました。どうやって受け取ればいいですか。", "shipping", 1, 0, E),
            ("自動更新を停止してください。今年度いっぱいで利用をやめるつもりです。", "cancellation", 0, 0, E),
            ("身に覚えのないパスワード再設定メールが届きました。誰かが私のアカウントに入ろうとしているのでしょうか。", "account_access", 1, 0, E),
        ],
        "reviews": [
            ("サイズ表より明らかに小さく、返品しました。生地の肌触りは良かったのですが。", 1, None, B),
            ("販売者の方から「問題なく届きましたか」とご連絡をいただきました。丁寧な対応に感激です！", 4, "customer_service", E),
            ("48時間以内発送と書いてあったのに、スマホケース一つ届くのに3週間かかりました。ありえません。", 0, "delivery", E),
            ("この値段なので期待はしていませんでしたが、その通りでした。動くには動きますが、それだけです。", 2, "price_value", B),
            ("画面がシンプルで設定も直感的、説明書も1枚で十分。機械が苦手な人にもおすすめです。", 4, "ease_of_use", E),
        ],
        "phishing": [
            ("【重要】お支払い情報の更新が必要です。12時間以内に更新されない場合、サービスを停止いたします：http://streaming-koushin-pay.com", True, E),
            ("お母さん、スマホ壊れちゃって、これ新しい番号。急ぎで4万5千円振り込んでくれない？理由はあとで話すね。", True, E),
            ("お荷物は明日9時〜13時にお届け予定です。配送状況は配送業者の公式アプリでご確認いただけます。", False, B),
            ("情報システム部より：金曜18時に全PCのアップデートを実施します。皆さまの対応は不要です。パスワードは絶対に他人に教えないでください。", False, D),
        ],
        "alerts": [
            ("worker-3ノードがカーネル更新後に自動再起動しました。全サービスは正常に復旧しています。", 0, B),
            ("送信メールのキューが5,000件を超え、増え続けています。", 1, B),
            ("前回のリリース以降、Android版アプリでログインに失敗するユーザーが出ています。", 2, E),
        ],
    },
    "ar": {
        "support": [
            ("عند محاولة تفعيل المصادقة الثنائية يظهر «رمز غير صالح» رغم أنني أُدخل الرمز فورًا.", "account_access", 1, 0, E),
            ("التحديث الجديد ألغى الوضع الليلي. كان من الأفضل أن تبلغونا مسبقًا.", "technical", 0, 1, B),
            ("غيّرت البنك، فكيف أحدّث رقم الآيبان للخصومات القادمة؟", "billing", 0, 0, E),
            ("خُصم مني ثمن خيار «بريميوم» الذي لم أطلبه أصلًا. أطالب باسترداد المبلغ فورًا، وإلا سأرفع شكوى.", "billing", None, 2, E),
            ("سلّم المندوب طردي لجار لا أعرفه في آخر الشارع. كيف أستلمه؟", "shipping", 1, 0, E),
            ("أرجو إيقاف التجديد التلقائي لاشتراكي، فلا أرغب في الاستمرار بعد هذا العام.", "cancellation", 0, 0, E),
            ("وصلتني رسالة لإعادة تعيين كلمة المرور لم أطلبها. هل يحاول أحد الدخول إلى حسابي؟", "account_access", 1, 0, E),
        ],
        "reviews": [
            ("المقاس أصغر بكثير من جدول المقاسات واضطررت إلى إرجاعه، مع أن القماش ناعم.", 1, None, B),
            ("تواصل معي البائع بنفسه ليتأكد أن الطلب وصل سليمًا. اهتمام نادر ومقدَّر!", 4, "customer_service", E),
            ("ثلاثة أسابيع لاستلام غطاء جوال بسيط، مع أن التوصيل كان معلنًا خلال ٤٨ ساعة. غير مقبول.", 0, "delivery", E),
            ("بهذا السعر لم أتوقع الكثير، وهذا بالضبط ما حصلت عليه: يعمل، لا أكثر ولا أقل.", 2, "price_value", B),
            ("واجهة واضحة وإعدادات سهلة، والدليل في صفحة واحدة. مثالي لمن لا يرتاح للتقنية.", 4, "ease_of_use", E),
        ],
        "phishing": [
            ("تعذّر تجديد اشتراكك في خدمة البث. حدّث بيانات الدفع خلال ١٢ ساعة لتجنب إيقاف الحساب: http://streaming-payment-update.com", True, E),
            ("ماما، انكسر جوالي وهذا رقمي الجديد. ممكن تحوّلين لي ١٥٠٠ ريال الحين؟ أشرح لك بعدين.", True, E),
            ("سيتم توصيل شحنتك غدًا بين الساعة ٩ صباحًا و١ ظهرًا. يمكنك تتبع الشحنة من تطبيق شركة الشحن.", False, B),
            ("من إدارة تقنية المعلومات: سيتم تحديث جميع الأجهزة يوم الخميس الساعة ٦ مساءً، ولا يلزمكم أي إجراء. لا تشاركوا كلمة المرور مع أي شخص.", False, D),
        ],
        "alerts": [
            ("أُعيد تشغيل الخادم worker-3 تلقائيًا بعد تحديث النواة، وعادت جميع الخدمات إلى وضعها الطبيعي.", 0, B),
            ("طابور رسائل البريد الصادر تجاوز ٥٠٠٠ رسالة وما زال يزداد.", 1, B),
            ("منذ الإصدار الأخير يفشل تسجيل الدخول في تطبيق أندرويد لدى المستخدمين.", 2, E),
        ],
    },
}.items():
    for _bank, _rows in _banks.items():
        EXTRA.setdefault(_code, {}).setdefault(_bank, [])
        EXTRA[_code][_bank] = list(EXTRA[_code][_bank]) + _rows

# Language-specific scenarios (local payment methods, carriers, habits) for the other 15 languages,
# so that not every story is parallel across languages.
for _code, _banks in {
    "de": {
        "support": [
            ("Mein Paket liegt angeblich in der Packstation, aber der Abholcode wird nicht akzeptiert.", "shipping", 1, 0, E),
            ("Die Lastschrift ist geplatzt, weil bei Ihnen eine falsche IBAN hinterlegt war – meine Bank berechnet mir jetzt 3 € Gebühr. Die erstatten Sie mir bitte.", "billing", 1, 1, E),
            ("Ich habe mein Handy verloren und komme ohne die Authenticator-App nicht mehr in mein Konto. Wie setze ich die Zwei-Faktor-Anmeldung zurück?", "account_access", 2, 0, E),
            ("Bitte kündigen Sie meinen Vertrag zum nächstmöglichen Termin und bestätigen Sie mir das Enddatum schriftlich.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("Die Kaffeemaschine macht tollen Espresso, nur das Entkalken ist eine Wissenschaft für sich.", 3, None, B),
            ("Der Händler hat auf meine Reklamation patzig reagiert und behauptet, ich hätte das Gerät selbst beschädigt. Nie wieder.", 0, "customer_service", E),
            ("Für 15 Euro kann man wirklich nicht meckern – hält jetzt schon ein Jahr.", 3, "price_value", E),
        ],
    },
    "nl": {
        "support": [
            ("Ik heb via iDEAL betaald, het geld is van mijn rekening af, maar mijn bestelling staat nog op 'wacht op betaling'.", "billing", 1, 0, E),
            ("PostNL zegt dat ze me niet thuis troffen, maar ik heb de hele dag thuisgezeten. Waar ligt mijn pakket nu?", "shipping", 1, 1, E),
            ("Na de laatste update crasht de app bij het scannen van bonnetjes. Niet dringend, maar wel vervelend.", "technical", 0, 1, B),
            ("Ik wil mijn account laten verwijderen inclusief al mijn gegevens, conform de AVG.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("Fiets is mooi, maar het monteren van het voorwiel was met deze handleiding echt een puzzel.", 2, "ease_of_use", B),
            ("Binnen een dag in huis, netjes verpakt en de bezorger belde zelfs even van tevoren. Top service van de vervoerder!", 4, "delivery", E),
            ("Voor deze prijs had ik meer verwacht; na drie keer wassen zit er al een gat in.", 0, "product_quality", B),
        ],
    },
    "es": {
        "support": [
            ("Pagué con Bizum y me ha llegado la confirmación del banco, pero en vuestra web el pedido sigue como «pendiente de pago».", "billing", 1, 0, E),
            ("Correos me ha dejado un aviso, pero en la oficina dicen que el paquete no está. ¿Dónde está mi pedido?", "shipping", 1, 1, E),
            ("La app se queda congelada al escanear el código QR de la entrada y el concierto empieza en media hora. ¡Ayuda!", "technical", 2, None, E),
            ("Quiero darme de baja del plan familiar a final de mes; mis hijos ya no lo usan.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("La freidora de aire va de lujo, aunque el manual solo viene en inglés y cuesta entender los programas.", 3, None, B),
            ("El vendedor me cambió la talla sin poner pegas y hasta me mandó una nota escrita a mano. Un encanto.", 4, "customer_service", E),
            ("Carísimo para lo que ofrece. Por la mitad de precio hay otros mucho mejores.", 0, "price_value", E),
        ],
    },
    "pt": {
        "support": [
            ("Paguei via Pix e o comprovante saiu na hora, mas o pedido continua como \"aguardando pagamento\".", "billing", 1, 0, E),
            ("O entregador marcou como \"destinatário ausente\", mas eu passei o dia inteiro em casa. Que palhaçada.", "shipping", 1, 2, {"tone": B}),
            ("O app trava quando tento emitir o boleto do mês e ele vence hoje. Me ajudem!", "technical", 3, None, {"urg": B}),
            ("Quero cancelar o plano família no fim do mês, meus filhos não usam mais.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("A air fryer é ótima, mas o manual só vem em inglês e demorei para entender os programas.", 3, None, B),
            ("O vendedor trocou o tamanho sem criar caso e ainda mandou um bilhete escrito à mão. Um amor.", 4, "customer_service", E),
            ("Caro demais para o que oferece. Pela metade do preço tem coisa bem melhor.", 0, "price_value", E),
        ],
    },
    "it": {
        "support": [
            ("Ho pagato con PayPal e mi è arrivata la conferma, ma sul vostro sito l'ordine risulta ancora «in attesa di pagamento».", "billing", 1, 0, E),
            ("Il corriere ha lasciato un avviso di mancata consegna, ma io ero in casa tutto il giorno. Dov'è il mio pacco adesso?", "shipping", 1, 1, E),
            ("Dopo l'aggiornamento, l'app si blocca quando provo a caricare lo scontrino. Niente di urgente, ma è scomodo.", "technical", 0, 1, B),
            ("Vorrei disattivare il rinnovo automatico: a scadenza non intendo rinnovare l'abbonamento.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("La friggitrice ad aria funziona benissimo, anche se il manuale è solo in inglese e i programmi non si capiscono subito.", 3, None, B),
            ("Il venditore mi ha cambiato la taglia senza storie e mi ha pure scritto un bigliettino a mano. Gentilissimi.", 4, "customer_service", E),
            ("Carissimo per quello che offre. A metà prezzo se ne trovano di molto migliori.", 0, "price_value", E),
        ],
    },
    "pl": {
        "support": [
            ("Zapłaciłem BLIK-iem, pieniądze zeszły z konta, a zamówienie nadal ma status „oczekuje na płatność”.", "billing", 1, 0, E),
            ("Paczka miała trafić do paczkomatu, ale kurier odesłał ją do nadawcy. Co teraz?", "shipping", 1, 0, E),
            ("Po aktualizacji aplikacja zawiesza się przy skanowaniu paragonu. Nic pilnego, ale irytujące.", "technical", 0, 1, B),
            ("Proszę o usunięcie mojego konta wraz ze wszystkimi danymi zgodnie z RODO.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("Frytkownica beztłuszczowa działa świetnie, tylko instrukcja jest wyłącznie po angielsku i trudno ogarnąć programy.", 3, None, B),
            ("Sprzedawca wymienił rozmiar bez żadnych problemów i jeszcze dołączył odręczny liścik. Przemiło.", 4, "customer_service", E),
            ("Zdecydowanie za drogie jak na to, co oferuje. Za połowę ceny są dużo lepsze.", 0, "price_value", E),
        ],
    },
    "ru": {
        "support": [
            ("Оплатил через СБП, деньги списались, а заказ всё ещё висит в статусе «ожидает оплаты».", "billing", 1, 0, E),
            ("Посылка должна была прийти в пункт выдачи, но её почему-то вернули отправителю. Что мне теперь делать?", "shipping", 1, 0, E),
            ("После обновления приложение зависает при сканировании чека. Не срочно, но раздражает.", "technical", 0, 1, B),
            ("Прошу удалить мой аккаунт вместе со всеми персональными данными.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("Аэрогриль отличный, только инструкция лишь на английском, и в программах разобраться непросто.", 3, None, B),
            ("Продавец без проблем обменял размер и даже вложил записку от руки. Очень приятно.", 4, "customer_service", E),
            ("Слишком дорого для такого качества. За полцены есть варианты гораздо лучше.", 0, "price_value", E),
        ],
    },
    "uk": {
        "support": [
            ("Посилка мала прийти у відділення Нової пошти, але її чомусь повернули відправнику. Що мені тепер робити?", "shipping", 1, 0, E),
            ("Оплатив карткою, гроші списалися, а замовлення досі має статус «очікує оплати».", "billing", 1, 0, E),
            ("Після оновлення застосунок зависає під час сканування чека. Не терміново, але дратує.", "technical", 0, 1, B),
            ("Прошу видалити мій акаунт разом з усіма персональними даними.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("Аерогриль чудовий, тільки інструкція лише англійською, і в програмах розібратися непросто.", 3, None, B),
            ("Продавець без проблем обміняв розмір і навіть поклав записку від руки. Дуже приємно.", 4, "customer_service", E),
            ("Надто дорого як на таку якість. За пів ціни є значно кращі варіанти.", 0, "price_value", E),
        ],
    },
    "he": {
        "support": [
            ("שילמתי בביט והכסף ירד מהחשבון, אבל ההזמנה עדיין מופיעה כ\"ממתינה לתשלום\".", "billing", 1, 0, E),
            ("השליח סימן \"לא נמצא בבית\" למרות שהייתי בבית כל היום. איפה החבילה שלי עכשיו?", "shipping", 1, 1, E),
            ("מאז העדכון האפליקציה נתקעת כשאני סורק קבלה. לא דחוף, אבל מעצבן.", "technical", 0, 1, B),
            ("אבקש למחוק את החשבון שלי יחד עם כל המידע האישי.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("הסיר האוויר מעולה, רק שההוראות באנגלית בלבד וקשה להבין את התוכניות.", 3, None, B),
            ("המוכר החליף מידה בלי שום בעיה ואפילו צירף פתק בכתב יד. מקסים.", 4, "customer_service", E),
            ("יקר מדי ביחס למה שהוא נותן. בחצי מחיר יש הרבה יותר טובים.", 0, "price_value", E),
        ],
    },
    "tr": {
        "support": [
            ("Kapıda ödeme seçtim ama kurye sadece nakit kabul ettiğini söyleyip paketi geri götürdü. Şimdi ne olacak?", "shipping", 1, 1, B),
            ("Kartımdan taksitli çekim yapılması gerekirken tek seferde çekilmiş. Düzeltilmesini rica ediyorum.", "billing", 1, 0, E),
            ("Güncellemeden sonra uygulama fiş tararken donuyor. Acil değil ama can sıkıcı.", "technical", 0, 1, B),
            ("Hesabımın tüm kişisel verilerimle birlikte silinmesini talep ediyorum.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("Air fryer çok iyi, sadece kılavuz yalnızca İngilizce ve programları anlamak zor.", 3, None, B),
            ("Satıcı bedeni sorunsuz değiştirdi, üstüne el yazısıyla bir not bile koymuş. Çok tatlı.", 4, "customer_service", E),
            ("Sunduğuna göre fazlasıyla pahalı. Yarı fiyatına çok daha iyileri var.", 0, "price_value", E),
        ],
    },
    "zh": {
        "support": [
            ("我用支付宝付过款了，钱也扣了，可订单还显示“待付款”。", "billing", 1, 0, E),
            ("快递显示放进了快递柜，但取件码一直提示无效。", "shipping", 1, 0, E),
            ("更新以后，扫描小票时App就卡住。不着急，但挺烦的。", "technical", 0, 1, B),
            ("请注销我的账号，并删除所有个人信息。", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("空气炸锅很好用，就是说明书只有英文，菜单模式看得有点费劲。", 3, None, B),
            ("卖家二话不说就给换了尺码，还附了一张手写卡片，太暖心了。", 4, "customer_service", E),
            ("这价格太离谱了，半价就能买到好得多的。", 0, "price_value", E),
        ],
    },
    "ko": {
        "support": [
            ("카카오페이로 결제했고 돈도 빠져나갔는데 주문 상태가 아직 '입금 대기'예요.", "billing", 1, 0, E),
            ("택배가 무인 택배함에 보관됐다는데 인증번호가 계속 틀리다고 나와요.", "shipping", 1, 0, E),
            ("업데이트 후로 영수증을 스캔하면 앱이 멈춰요. 급한 건 아니지만 불편하네요.", "technical", 0, 1, B),
            ("제 계정과 개인정보를 모두 삭제해 주세요.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("에어프라이어 성능은 좋은데 설명서가 영어로만 되어 있어서 모드 익히기가 힘들었어요.", 3, None, B),
            ("판매자분이 사이즈 교환을 흔쾌히 해 주시고 손편지까지 넣어 주셨어요. 감동입니다.", 4, "customer_service", E),
            ("이 가격은 너무 비싸요. 반값에 훨씬 좋은 제품이 많아요.", 0, "price_value", E),
        ],
    },
    "hi": {
        "support": [
            ("UPI से पेमेंट कर दिया, पैसे खाते से कट गए, फिर भी ऑर्डर \"पेमेंट पेंडिंग\" दिखा रहा है।", "billing", 1, 0, E),
            ("कैश ऑन डिलीवरी था, पर डिलीवरी बॉय बिना बताए पार्सल वापस ले गया। अब क्या करूँ?", "shipping", 1, 1, E),
            ("अपडेट के बाद बिल स्कैन करते ही ऐप अटक जाता है। जल्दी नहीं है, पर परेशानी होती है।", "technical", 0, 1, B),
            ("कृपया मेरा अकाउंट और सारी निजी जानकारी डिलीट कर दीजिए।", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("एयर फ़्रायर बढ़िया है, बस मैनुअल सिर्फ़ अंग्रेज़ी में है और प्रोग्राम समझने में दिक़्क़त हुई।", 3, None, B),
            ("विक्रेता ने बिना किसी झंझट के साइज़ बदल दिया और हाथ से लिखा एक नोट भी भेजा। दिल खुश हो गया।", 4, "customer_service", E),
            ("इस क़ीमत पर बहुत महँगा है। आधे दाम में इससे कहीं अच्छे मिल जाते हैं।", 0, "price_value", E),
        ],
    },
    "vi": {
        "support": [
            ("Tôi đã thanh toán qua MoMo, tiền đã bị trừ nhưng đơn hàng vẫn báo \"chờ thanh toán\".", "billing", 1, 0, E),
            ("Đơn COD mà shipper tự ý hoàn hàng, không hề gọi cho tôi. Giờ phải làm sao?", "shipping", 1, 1, E),
            ("Sau khi cập nhật, ứng dụng bị treo mỗi lần quét hóa đơn. Không gấp nhưng khá phiền.", "technical", 0, 1, B),
            ("Vui lòng xóa tài khoản của tôi cùng toàn bộ dữ liệu cá nhân.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("Nồi chiên không dầu dùng rất ổn, chỉ có sách hướng dẫn toàn tiếng Anh nên hơi khó hiểu các chế độ.", 3, None, B),
            ("Shop đổi size cho mình không chút phàn nàn, còn kèm cả tấm thiệp viết tay. Dễ thương ghê.", 4, "customer_service", E),
            ("Giá quá chát so với chất lượng. Bằng nửa tiền là mua được loại tốt hơn nhiều.", 0, "price_value", E),
        ],
    },
    "id": {
        "support": [
            ("Saya sudah bayar pakai GoPay dan saldonya sudah terpotong, tapi status pesanan masih \"menunggu pembayaran\".", "billing", 1, 0, E),
            ("Pesanan COD saya malah diretur kurir tanpa menghubungi saya sama sekali. Sekarang bagaimana?", "shipping", 1, 1, E),
            ("Sejak update, aplikasinya nge-freeze tiap kali scan struk. Tidak mendesak, tapi mengganggu.", "technical", 0, 1, B),
            ("Tolong hapus akun saya beserta semua data pribadi saya.", "cancellation", 0, 0, E),
        ],
        "reviews": [
            ("Air fryer-nya mantap, cuma buku panduannya full bahasa Inggris jadi agak susah paham programnya.", 3, None, B),
            ("Penjualnya mau tukar ukuran tanpa ribet, malah diselipkan kartu tulisan tangan. Manis banget.", 4, "customer_service", E),
            ("Kemahalan untuk kualitas segini. Setengah harganya sudah dapat yang jauh lebih bagus.", 0, "price_value", E),
        ],
    },
}.items():
    for _bank, _rows in _banks.items():
        EXTRA.setdefault(_code, {}).setdefault(_bank, [])
        EXTRA[_code][_bank] = list(EXTRA[_code][_bank]) + _rows
