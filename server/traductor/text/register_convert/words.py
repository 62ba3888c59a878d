"""The word tables of the register_convert rules (formal -> informal rewrites of Russian and Dutch
interface messages, informal -> formal ones of Italian). Russian words are written with е for ё
(the rules compare them so) unless said otherwise; Dutch and Italian in lower case.
"""

from __future__ import annotations

import re

from .. import address_more_words as reader


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# ---- Russian
RU_PRONOUNS = {"вы": "ты", "вас": "тебя", "вам": "тебе", "вами": "тобой"}  # вас after о/об/при: тебе
RU_POSSESSIVES = {
    "ваш": "твой", "ваша": "твоя", "ваше": "твоё", "ваши": "твои", "вашего": "твоего", "вашей": "твоей",
    "вашему": "твоему", "вашим": "твоим", "вашими": "твоими", "ваших": "твоих", "вашу": "твою", "вашем": "твоём",
}  # fmt: skip
RU_GROUP = _words("все всех всем всеми")  # "вы все", "вам всем": a group, no one reader
# 2nd plural present/future -> 2nd singular: the irregular ones, then the endings (ё kept as written)
RU_IRREGULAR_2SG = (
    ("хотите", "хочешь"), ("захотите", "захочешь"), ("едите", "ешь"), ("съедите", "съешь"),
    ("дадите", "дашь"),  # and its compounds: передадите, создадите, зададите...
)  # fmt: skip
RU_2SG_ENDINGS = (
    ("ётесь", "ёшься"), ("етесь", "ешься"), ("итесь", "ишься"), ("ёте", "ёшь"), ("ете", "ешь"), ("ите", "ишь"),
)  # fmt: skip
RU_2PL_ENDINGS = ("ете", "ите", "етесь", "итесь")  # ё read as е
# -ите -> -ишь only for verbs of the 2nd conjugation (сохраните -> сохранишь): after вы an -ите
# form of the 1st is an imperative written for the verb ("вы выберите", "вы щёлкните": выберешь?)
RU_SECOND_CONJUGATION = _words(
    "сохраните увидите получите продолжите находитесь удалите видите решите перезапустите заметите "
    "добавите отправите измените закончите просите заплатите завершите проверите переходите сохранитесь "
    "подтвердите помните пропустите отпустите замените предложите победите устраните перезагрузите "
    "переключитесь говорите включите опустите ходите подключите присоединитесь настроите слышите услышите "
    "сбросите подключитесь загрузите поверите ответите ступите выключите держитесь установите выделите "
    "поступите расставите очистите изучите провалитесь выполните позвоните вспомните запомните отмените "
    "смотрите посмотрите купите стоите сидите любите курите платите служите отключите запустите"
)
RU_IMPERATIVE_ENDINGS = ("ите", "йте", "ьте", "итесь", "йтесь", "ьтесь")
RU_ONLY_IMPERATIVE = ("йте", "ьте", "йтесь", "ьтесь")  # no verb's other form ends so (nouns: RU_NOT_VERBS)
# 2nd plural verbs that are no imperative where they stand ("Хотите сохранить?"); the reader's
# list less "получите" (also "get it!")
RU_VY_VERBS = _words("можете хотите желаете сможете будете знаете имеете увидите найдете потеряете")
RU_VY_IMPERATIVES = frozenset(w.replace("ё", "е") for w in reader.RU_VY_IMPERATIVES) - RU_VY_VERBS
RU_IMPERATIVE_OPENERS = reader.RU_IMPERATIVE_OPENERS
# between вы and its verb: "вы также можете", "вы действительно хотите", "Вы не можете"
RU_TRANSPARENT = _words(
    "не ни ли же также тоже уже еще действительно точно сейчас теперь всегда сразу больше никогда "
    "обязательно только именно просто легко снова затем потом здесь тут там"
)
# short forms that agree with вы in gender and number: "Вы уверены" (уверен or уверена?)
RU_SHORT = _words(
    "уверены должны готовы согласны правы обязаны рады способны свободны довольны вынуждены заинтересованы знакомы"
)
RU_COPULAS = _words("будьте станьте оставайтесь останьтесь кажетесь будете станете являетесь")  # + "внимательны"
RU_NOT_PAST = _words("если или ли либо земли роли цели модели мысли сети дали")
RU_CLAUSE_OPENERS = _words("если что когда раз как чтобы уже не")
RU_PREPOSITIONS = _words("в во на о об обо при по")  # before a prepositional noun: "в пакете", "на сайте"
RU_ADJECTIVE_ENDS = ("ом", "ем", "ой", "ей")  # "в этом пакете", "на новой планете": a noun follows
RU_NOT_VERBS = _words("сайте пакете интернете ответе кабинете совете бюджете предмете комплекте билете")

# ---- Dutch
NL_WORDS = {"u": "je", "uw": "je", "uwe": "jouwe", "uzelf": "jezelf"}
# "a.u.b." (its last dot kept where it ends the sentence) and "alstublieft"
NL_PLEASE = re.compile(r"(?<![\w.])[Aa]\.[Uu]\.[Bb](?:\.(?!\s*$|\s*\n|\s+[A-Z<]))?|(?<![\w.])[Aa]lstublieft\b")
NL_NOT_PRONOUN_NEXT = frozenset("/\\'\"`’‘_=0123456789")  # "km/u", "'u'", "5u", "\\u": a letter or a unit
# the je form of a verb before an inverted u: "kunt u" -> "kun je", "heeft u" -> "heb je"
NL_INVERTED = {
    "kunt": "kun", "wilt": "wil", "zult": "zul", "hebt": "heb", "heeft": "heb", "bent": "ben", "gaat": "ga",
    "staat": "sta", "slaat": "sla", "ziet": "zie", "doet": "doe", "zegt": "zeg", "gelooft": "geloof",
}  # fmt: skip
NL_SECOND_ONLY = _words("kunt wilt zult hebt bent")  # never a 3rd singular: u is their subject
# verbs whose stem ends in t: the same form with je ("moet u" -> "moet je", "weet u zeker")
NL_KEEP_T = _words(
    "moet weet laat zet start wacht test print post kost rust zit let eet vergeet praat sluit schiet "
    "verwacht richt bericht verricht vecht acht haast ontmoet groet bijt wist moest herstart opstart"
)
# words before u that are no inverted verb: conjunctions, relatives, prepositions, pronouns
NL_NOT_VERBS = _words(
    "dat wat met tot niet omdat want zodat totdat nadat doordat opdat het dit iets echt ooit eerst best "
    "alsof terwijl voordat vooraleer zodra zolang tenzij indien wanneer als of die waar hoe wie welke "
    "toen dus maar en om voor van aan naar bij op door over uit zonder tegen onder na sinds ik wij we hij "
    "zij ze men dat geval alvorens mits zoals waarin waarmee waarvan waarop waarnaar waarvoor waaruit waarbij "
    "waardoor waaraan waaronder waarom net slechts alsjeblieft"
)
# what may stand before a 3rd-singular-like verb whose subject is u ("Hier geeft u ... in"); after
# anything else u may be the object ("Dit geeft u de keuze"), and the pair is skipped
NL_ADVERBS = _words(
    "hier nu dan daar daarna vervolgens eerst ook hiermee daarmee hierdoor zo soms altijd nog toen "
    "hoe waar wanneer waarom straks hierna daarom dus eventueel voortaan verder daarbij hierbij"
)

# ---- Italian (tu -> Lei). Possessives take the polite capital ("il Suo nome"), as the reader
# counts them; "ti" becomes "La" (object) or "Le" (to you) by the verb after it.
IT_POSSESSIVES = {"tuo": "Suo", "tua": "Sua", "tuoi": "Suoi", "tue": "Sue"}
# second-person forms of the common irregular verbs -> third person, wherever they stand
IT_2SG = {
    "vuoi": "vuole", "puoi": "può", "devi": "deve", "hai": "ha", "stai": "sta", "sai": "sa", "vai": "va",
    "fai": "fa", "sei": "è", "riesci": "riesce", "esci": "esce", "vieni": "viene", "tieni": "tiene",
    "scegli": "sceglie", "riempi": "riempie", "dici": "dice", "conosci": "conosce", "capisci": "capisce",
    "preferisci": "preferisce", "desideri": "desidera", "trovi": "trova", "senti": "sente",
}  # fmt: skip
IT_SEI_AFTER = _words("tu non se ci ne già ora")  # "sei" is also six: a verb after these or before a predicate
IT_PARTICIPLE_ENDS = ("ato", "ata", "ati", "ate", "uto", "uta", "uti", "ito", "ita", "iti")
IT_NOT_CONDITIONAL = _words("arresti")  # "-resti" -> "-rebbe" otherwise ("potresti" -> "potrebbe")
# tu imperatives beyond the reader's list, tu -> Lei (their Lei forms read neutral; kept for agreement)
IT_MORE_IMPERATIVES = {
    "dimentica": "dimentichi", "preoccupa": "preoccupi", "spegni": "spenga", "riavvia": "riavvii",
    "ricollega": "ricolleghi", "espandi": "espanda", "comprimi": "comprima", "sblocca": "sblocchi",
    "blocca": "blocchi", "converti": "converta", "inverti": "inverta", "avverti": "avverta", "sii": "sia",
    "abbi": "abbia", "di'": "dica", "dì": "dica", "digli": "gli dica", "trascina": "trascini",
}  # fmt: skip
IT_IMPERATIVES = {**reader.IT_IMPERATIVES, **IT_MORE_IMPERATIVES}
# the Lei imperative of "non" + infinitive ("Non spegnere" -> "Non spenga"): the -are verbs of the
# table by rule (selezionare -> selezioni), these by hand
IT_INFINITIVE_LEI = {
    "premere": "prema", "inserire": "inserisca", "scegliere": "scelga", "chiudere": "chiuda", "attendere": "attenda",
    "aprire": "apra", "seguire": "segua", "scrivere": "scriva", "immettere": "immetta", "rimuovere": "rimuova",
    "aggiungere": "aggiunga", "riempire": "riempia", "leggere": "legga", "connettere": "connetta",
    "disconnettere": "disconnetta", "eseguire": "esegua", "chiedere": "chieda", "mettere": "metta",
    "prendere": "prenda", "andare": "vada", "fare": "faccia", "dare": "dia", "tenere": "tenga", "venire": "venga",
    "uscire": "esca", "accedere": "acceda", "ripetere": "ripeta", "rispondere": "risponda", "condividere": "condivida",
    "scoprire": "scopra", "vedere": "veda", "scorrere": "scorra", "sostituire": "sostituisca", "spegnere": "spenga",
    "espandere": "espanda", "comprimere": "comprima", "convertire": "converta", "essere": "sia", "avere": "abbia",
    "dire": "dica", "interrompere": "interrompa", "perdere": "perda", "cambiare": "cambi",
}  # fmt: skip
# the third person of a tu imperative that is also the second-person present (-ere/-ire verbs:
# "se premi" -> "se preme"); the rest by rule (-isci -> -isce, -i -> -e)
IT_THIRD_IRREGULAR = {"scegli": "sceglie", "riempi": "riempie", "vieni": "viene", "tieni": "tiene"}
# words after which a second-person present is a verb of the reader ("se selezioni", "quando premi")
IT_SUBJECT_OPENERS = _words("se quando mentre appena finché dove come perché cosa che tu poi")
IT_CLITICS = reader.IT_CLITICS  # between an opener and its verb
# "ti" + verb: "La" where "ti" is the object ("La preghiamo"), "Le" where it is "to you"
IT_TI_OBJECT = _words(
    "preghiamo ringraziamo aiuta aiuterà aiuteremo aiutiamo invitiamo avvisiamo avviseremo avvisa avviserà "
    "informiamo informeremo informa informerà contatteremo contatterà contattiamo porta porterà reindirizza "
    "reindirizzeremo guida guiderà accompagna salutiamo aspettiamo autorizza protegge identifica conosce "
    "prego ringrazio aiutano aiuteranno avviso informo invito"
)
IT_TI_TO = _words(
    "consigliamo suggeriamo chiediamo ricordiamo mostra mostriamo mostrerà permette permetterà consente "
    "consentirà serve servirà servono piace piacerà piacciono interessa interessano invieremo inviamo invierà "
    "manderemo manda chiede chiederà dice dirà diciamo diamo daremo offre offriamo offrirà fornisce forniamo "
    "sembra basta manca mancano è sarà verrà verranno spiega spieghiamo garantiamo auguriamo "
    "raccomandiamo occorre resta restano rimane rimangono appare invia assegna notifica notificheremo "
    "consiglio suggerisco chiedo ricordo offro auguro mostrerò spiegherò darò dirò permettono consentono "
    "serviranno saranno importa danno piaccia"
)
# "ti" + a second-person verb is reflexive: "ti sei registrato" -> "si è registrato"
IT_REFLEXIVE_2SG = {
    "sei": "è", "trovi": "trova", "senti": "sente", "stai": "sta", "ricordi": "ricorda", "colleghi": "collega",
    "connetti": "connette", "disconnetti": "disconnette", "registri": "registra", "iscrivi": "iscrive",
    "assicuri": "assicura", "accorgi": "accorge", "preoccupi": "preoccupa", "sposti": "sposta",
}  # fmt: skip
# tu imperatives with "ti" joined, and the others the reader knows -> Lei (the pronoun first)
IT_JOINED = {
    "assicurati": "si assicuri", "ricordati": "si ricordi", "accertati": "si accerti", "rivolgiti": "si rivolga",
    "iscriviti": "si iscriva", "connettiti": "si connetta", "collegati": "si colleghi",
    "disconnettiti": "si disconnetta", "registrati": "si registri",
    "dimmi": "mi dica", "dicci": "ci dica", "fammi": "mi faccia", "facci": "ci faccia", "dammi": "mi dia",
    "dacci": "ci dia", "mandaci": "ci mandi", "scrivici": "ci scriva", "contattaci": "ci contatti",
    "vattene": "se ne vada", "sentiti": "si senta", "fermati": "si fermi", "spostati": "si sposti",
}  # fmt: skip
# an infinitive or gerund with "ti" joined: reflexive where the reader is its subject
# ("per registrarti" -> "per registrarsi"), an object ("aiutarti" -> "aiutarla") or "to you"
# ("mostrarti" -> "mostrarle"), by the infinitive
IT_REFLEXIVE_VERBS = _words(
    "registrare collegare connettere disconnettere iscrivere disiscrivere autenticare identificare preoccupare "
    "assicurare accertare ricordare unire spostare sentire trovare rivolgere abituare divertire loggare "
    "fermare riconnettere ricollegare abbonare candidare accorgere dimenticare"
)
IT_OBJECT_VERBS = _words(
    "aiutare contattare avvisare informare invitare ringraziare guidare reindirizzare portare accompagnare "
    "proteggere salutare autorizzare bloccare"
)
IT_TO_VERBS = _words(
    "chiedere mostrare inviare consigliare suggerire permettere offrire fornire dare dire mandare spiegare "
    "consentire garantire notificare assegnare insegnare"
)
# words in -rti that are no infinitive with "ti" ("aperti" open, "esperti" experts, "parti" parts)
IT_NOT_JOINED_TI = _words(
    "aperti riaperti esperti coperti scoperti offerti sofferti inserti deserti concerti certi incerti avverti "
    "converti inverti diverti parti riparti scarti quarti comparti reparti sorti morti forti porti"
)

# ---- Brazilian Portuguese (você -> o senhor). Verbs and "seu"/"sua" are the same in both
# registers; the article of "senhor" joins a preposition before it ("de você" -> "do senhor").
PT_FORMAL = {"você": ("o", "senhor"), "vocês": ("os", "senhores")}
PT_JOINED = {  # preposition + article
    ("de", "o"): "do", ("a", "o"): "ao", ("à", "o"): "ao", ("em", "o"): "no", ("por", "o"): "pelo",
    ("pra", "o"): "pro", ("de", "os"): "dos", ("a", "os"): "aos", ("à", "os"): "aos", ("em", "os"): "nos",
    ("por", "os"): "pelos", ("pra", "os"): "pros",
}  # fmt: skip
PT_TU_FORMS = _words("tu te ti teu tua teus tuas")  # "tu" forms, rare in Brazil: skipped
