"""The words by which Italian, Brazilian Portuguese, Dutch and Russian interface messages address
their reader, by register: text/address_more.py reads a translation's register from them.

The pronouns and possessives are model/controls.ADDRESS's (the decoders' register bans read the
same table): this module adds only what a reader needs beyond them, verb forms above all, and
says where each group counts (see address_more.py). Lower case unless said otherwise.
"""

from __future__ import annotations

from ..model import controls


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _address(language: str, register: str, *more: str) -> frozenset[str]:
    return frozenset(w.lower() for w in controls.ADDRESS[language][register]) | frozenset(more)


# ---- Italian: tu (informal) against Lei (formal). Lei/Suo/Sua/Suoi/Sue count with their capital
# only, inside a sentence (or opening one where the English says "you"/"your"): "lei" is she.
IT_INFORMAL = _address("it", "informal", *"stai sai fai vai vorresti potresti dovresti avresti saresti".split())
IT_FORMAL = frozenset(controls.ADDRESS["it"]["formal"])  # as written, capitalised
IT_FORMAL_OPENING = frozenset(controls.READ_INSIDE_SENTENCE[("it", "formal")])
IT_SEI_PREDICATES = _words(  # "sei" is also six: "you are" only before these
    "sicuro sicura sicuri sicure stato stata davvero già ancora offline online connesso connessa "
    "disconnesso disconnessa pronto pronta"
)
# Imperatives of interface verbs, tu -> Lei. Either may be something else too ("seleziona" the
# third person, "selezioni" selections, "controlli" checks, "prova" a test): they count where an
# imperative stands and before what a verb takes (IT_VERB_OBJECTS).
IT_IMPERATIVES = dict(
    pair.split("/")
    for pair in (
        "seleziona/selezioni clicca/clicchi premi/prema inserisci/inserisca scegli/scelga chiudi/chiuda "
        "attendi/attenda apri/apra riprova/riprovi prova/provi riavvia/riavvii accetta/accetti "
        "controlla/controlli verifica/verifichi trascina/trascini segui/segua scrivi/scriva digita/digiti "
        "immetti/immetta salva/salvi elimina/elimini cancella/cancelli rimuovi/rimuova aggiungi/aggiunga "
        "modifica/modifichi usa/usi utilizza/utilizzi cerca/cerchi scarica/scarichi installa/installi "
        "aggiorna/aggiorni conferma/confermi annulla/annulli imposta/imposti specifica/specifichi "
        "indica/indichi compila/compili riempi/riempia leggi/legga tocca/tocchi sposta/sposti copia/copi "
        "incolla/incolli rinomina/rinomini crea/crei invia/invii ricorda/ricordi contatta/contatti "
        "visita/visiti consulta/consulti collega/colleghi connetti/connetta scollega/scolleghi "
        "disconnetti/disconnetta attiva/attivi disattiva/disattivi abilita/abiliti disabilita/disabiliti "
        "avvia/avvii esegui/esegua chiedi/chieda aspetta/aspetti lascia/lasci metti/metta prendi/prenda "
        "guarda/guardi vai/vada fai/faccia dai/dia tieni/tenga vieni/venga esci/esca accedi/acceda "
        "ripeti/ripeta continua/continui torna/torni rispondi/risponda stampa/stampi condividi/condivida "
        "trova/trovi scopri/scopra vedi/veda ricarica/ricarichi scorri/scorra firma/firmi "
        "sostituisci/sostituisca ripristina/ripristini registra/registri"
    ).split()
)
IT_VERB_OBJECTS = _words(  # what follows an imperative, not a noun: articles, determiners, "qui"...
    "il lo la i gli le l un uno una questo questa questi queste quel quella quei quelle quello tutti "
    "tutte tutto ogni qualsiasi qualunque alcuni alcune qui qua clic nuovamente ancora più subito ora "
    "tuo tua tuoi tue suo sua suoi sue dove come quale quali quando cosa"
)
IT_ALSO_NOUNS = _words("controlli selezioni cerchi salvi registri scarichi stampi usi invii prova firma copia stampa")
IT_IMPERATIVE_OPENERS = _words("favore prego")  # and a sentence's start
# a first-person verb a sentence may open with after the Lei pronoun ("La prego", "Le consiglio"), as
# after a first-person plural ("La preghiamo"): the capital "La"/"Le" there is no article
IT_AFTER_LA_LE = _words("prego ringrazio consiglio suggerisco chiedo ricordo auguro offro mostrerò spiegherò darò dirò")
# A Lei imperative may have an object pronoun before it ("Lo inserisca", "Si assicuri", "Ci dica")
IT_PRONOUNS_BEFORE = _words("lo la li le ne ci mi si gli")
IT_LEI_REFLEXIVE = _words("assicuri ricordi accerti registri colleghi connetta rivolga iscriva disconnetta")
# tu imperatives with their pronoun joined ("Assicurati", "Contattaci"); those that are also
# participles ("collegati" connected) count only where an imperative stands, as all of these
IT_TU_JOINED = _words(
    "assicurati ricordati accertati rivolgiti iscriviti connettiti collegati disconnettiti registrati "
    "dimmi dicci fammi facci dammi dacci mandaci scrivici contattaci vattene"
)
IT_ENCLITICS = ("lo", "la", "li", "ne", "mi", "ci")
IT_NOT_JOINED = _words("aprile")  # "apri" + "le": April
# Third-person verbs that address a Lei where the English says "you": opening a question
# ("Vuole salvare...?", "Ha dimenticato...?"), or a wish after "se" ("Se desidera, ...")
IT_THIRD_PERSON = _words("vuole può deve desidera ha sa preferisce vorrebbe potrebbe dovrebbe potrà dovrà")
IT_WISHES = _words("vuole desidera preferisce")
IT_IMPERSONAL = _words("essere esserci succedere accadere capitare servire bastare volerci")  # "Può succedere?"
IT_TRANSPARENT = _words("non lo la li ne già davvero veramente ancora ora lei")
# a second-person present after these, with IT_CLITICS between, is "you": "Se premi il pulsante",
# "quando lo selezioni" (the Lei forms are "se preme", "quando lo seleziona")
IT_PRESENT_OPENERS = _words("se quando mentre appena finché")
IT_CLITICS = _words("lo la li le ne ci vi non gli già anche")
IT_SICURO = _words("sicuro sicura")  # "È sicuro di voler...?": formal ("È sicuro che": it is certain)

# ---- Brazilian Portuguese: você (informal) against o senhor / a senhora (formal). Imperatives
# ("Digite", "Clique") are the same in both; "seu"/"sua" belong to both.
PT_INFORMAL = _address("pt-BR", "informal")
PT_FORMAL = _address("pt-BR", "formal")  # with an article before them: "o senhor", "à senhora"
PT_ARTICLES = _words("o a os as do da dos das ao à aos às no na nos nas pelo pela pelos pelas")

# ---- Dutch: je/jij (informal) against u (formal); imperatives ("Klik") are the same in both
NL_INFORMAL = _address("nl", "informal", "jouwe")
NL_FORMAL = _address("nl", "formal", "uzelf")

# ---- Russian: ты (informal) against вы (formal, Вы with a capital too)
RU_INFORMAL_WORDS = _address("ru", "informal")
RU_FORMAL_WORDS = _address("ru", "formal")
RU_INTERJECTIONS = _words("ух ох ах ну")  # "ух ты": wow
# ты imperatives of interface verbs, read where an imperative stands ("подключи" is also subkeys);
# their вы forms, read anywhere, are made from them (`_ru_formal`)
RU_TY_IMPERATIVES = _words(
    "нажми введи выбери попробуй сохрани проверь открой закрой перезапусти подожди убедись вставь удали "
    "скачай загрузи установи обнови используй щёлкни щелкни кликни укажи войди выйди перетащи следуй "
    "напиши подтверди повтори запомни помни скажи расскажи дай измени отмени продолжи прими подключи "
    "отключи посмотри найди создай заполни включи выключи запусти перезагрузи забудь разреши выполни "
    "зарегистрируйся свяжись авторизуйся обратись прочитай прочти перейди вернись оставь переименуй "
    "скопируй сделай введи отправь добавь нажимай попробуй"
)


def _ru_formal(ty: str) -> str:
    """The вы imperative of a ты one: "нажми" -> "нажмите", "проверь" -> "проверьте",
    "попробуй" -> "попробуйте", "убедись" -> "убедитесь", "зарегистрируйся" -> "зарегистрируйтесь"."""
    for reflexive in ("ся", "сь"):
        if ty.endswith(reflexive):
            return ty[: -len(reflexive)] + "тесь"
    return ty + "те"


RU_VY_IMPERATIVES = frozenset(_ru_formal(w) for w in RU_TY_IMPERATIVES)
# вы forms of the present and future: "можете", "хотите" (not "уверены", "должны": plurals too)
RU_VY_VERBS = _words("можете хотите желаете сможете будете знаете имеете увидите найдёте найдете потеряете получите")
RU_2SG_ENDINGS = ("ешь", "ишь", "ешься", "ишься")  # "можешь", "идёшь" (ё read as е), "подключишься"
RU_NOT_2SG = _words("брешь мышь лишь тишь глушь")
RU_VY_REFLEXIVE = ("йтесь", "итесь", "ьтесь")  # "Убедитесь": no other word ends so
RU_IMPERATIVE_ENDINGS = ("йте", "ите", "ьте")  # "Нажмите", but also "на сайте": where imperatives stand
RU_IMPERATIVE_OPENERS = _words("пожалуйста и не затем потом сначала сейчас снова повторно или также")
