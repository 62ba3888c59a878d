"""The words by which Spanish, French and German interface messages address their reader, by
register: text/address.py reads a translation's register from them. Lower case, accents as
written; each group says where it counts (see address.py).
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# ---- Spanish: tú (informal) against usted (formal)
ES_INFORMAL = _words(
    "tú tu tus ti te contigo vosotros vosotras vuestro vuestra vuestros vuestras os "
    "puedes quieres deseas debes tienes necesitas estás eres has sabes prefieres vas haces ves estarás "
    "podrás tendrás deberás querrás sabrás necesitarás podrías querrías deberías tendrías "
    "olvidaste quisiste pudiste hiciste escribiste abriste elegiste recibiste perdiste pediste "
    "intentas guardas cambias eliminas usas utilizas seleccionas pulsas cierras abres escribes eliges "
    "aceptas confirmas sigues vuelves continúas sales estés seas puedas quieras tengas piensas "
    "dime dinos dímelo cuéntanos avísanos"
)
ES_FORMAL = _words("usted ustedes")
# Imperatives of interface verbs, tú -> usted. The tú form is also the third person of the present
# ("El programa guarda...": it counts at the start of a clause only); the usted form counts anywhere.
ES_IMPERATIVES = dict(
    pair.split("/")
    for pair in (
        "selecciona/seleccione pulsa/pulse presiona/presione haz/haga introduce/introduzca escribe/escriba "
        "elige/elija abre/abra cierra/cierre guarda/guarde comprueba/compruebe asegura/asegure "
        "intenta/intente vuelve/vuelva usa/use utiliza/utilice añade/añada agrega/agregue "
        "elimina/elimine borra/borre busca/busque espera/espere reinicia/reinicie instala/instale "
        "ejecuta/ejecute configura/configure revisa/revise cambia/cambie pon/ponga sal/salga ten/tenga "
        "di/diga toca/toque arrastra/arrastre mira/mire indica/indique especifica/especifique "
        "proporciona/proporcione activa/active desactiva/desactive conecta/conecte inserta/inserte "
        "acepta/acepte confirma/confirme verifica/verifique descarga/descargue actualiza/actualice "
        "mueve/mueva renombra/renombre sigue/siga contacta/contacte envía/envíe recuerda/recuerde "
        "visita/visite lee/lea ingresa/ingrese teclea/teclee inicia/inicie crea/cree ve/vaya "
        "quita/quite deja/deje cancela/cancele continúa/continúe espera/espere regístrate/regístrese "
        "identifica/identifique escoge/escoja comparte/comparta copia/copie pega/pegue suelta/suelte "
        "arrastra/arrastre desconecta/desconecte apaga/apague enciende/encienda carga/cargue "
        "sal/salga olvida/olvide consulta/consulte avisa/avise introduce/introduzca"
    ).split()
)
# Regular interface verbs: their tú and usted imperatives, made from the infinitive
_ES_REGULAR = (
    "seleccionar pulsar presionar guardar intentar utilizar agregar eliminar borrar buscar esperar instalar "
    "ejecutar configurar revisar cambiar tocar arrastrar indicar especificar activar desactivar conectar "
    "insertar aceptar confirmar verificar descargar actualizar renombrar contactar visitar ingresar teclear "
    "llenar iniciar quitar dejar cancelar copiar pegar desconectar apagar cargar consultar rellenar completar marcar "
    "desmarcar reintentar editar llamar pagar registrar reiniciar navegar asegurar anotar avisar habilitar "
    "deshabilitar escribir abrir leer añadir permitir compartir subir describir responder imprimir recibir "
    "acceder aprender decidir"
).split()


def _es_pair(infinitive: str) -> tuple[str, str]:
    """(tú, usted) imperatives of a regular verb: "buscar" -> ("busca", "busque"), "leer" -> ("lee", "lea")."""
    stem, ending = infinitive[:-2], infinitive[-2:]
    if ending != "ar":
        return stem + "e", (stem[:-1] + "j" if stem.endswith("g") else stem) + "a"
    for hard, soft in (("c", "qu"), ("g", "gu"), ("z", "c")):
        if stem.endswith(hard):
            return stem + "a", stem[: -len(hard)] + soft + "e"
    return stem + "a", stem + "e"


for _verb in _ES_REGULAR:
    ES_IMPERATIVES.setdefault(*_es_pair(_verb))

# Pronouns a Spanish imperative takes at its end ("inténtalo", "asegúrese", "conéctate")
ES_ENCLITICS = ("selo", "sela", "selos", "selas", "telo", "tela", "telos", "telas") + tuple(
    "lo la los las le les me nos te se".split()
)
# Third-person verbs that address an usted: they count when the English says "you" and the verb
# opens a clause ("¿Desea...?", "Si desea...", "...de que quiere..."), not after a subject
# ("El archivo no puede abrirse").
ES_THIRD_PERSON = _words(
    "desea puede quiere debe tiene necesita está sabe prefiere olvidó hizo va "
    "podrá tendrá deberá querrá estará podría querría debería tendría desearía "
    "seleccionó abrió escribió eligió"
)
ES_CLAUSE_OPENERS = _words("si que cuando mientras y o pero porque aunque donde como antes después luego ahora")
ES_IMPERATIVE_OPENERS = _words("y o luego después entonces ahora")  # and a sentence's start, a comma
ES_TRANSPARENT = _words("no ya aún todavía también se lo la los las le les me nos realmente")
ES_POSSESSIVE_FORMAL = _words("su sus suyo suya suyos suyas")
ES_USTED_OBJECT = _words("le les")  # "¿Le gustaría...?": formal only before gustaría/interesa

# ---- French: tu (informal) against vous (formal)
FR_INFORMAL = _words("tu te toi ton ta tes t -tu -toi -t-toi")
FR_FORMAL = _words("vous votre vos -vous veuillez dites faites êtes etes soyez ayez sachez")
FR_IMPERATIVES_INFORMAL = _words(
    "saisis entre clique essaye sélectionne choisis redémarre vérifie appuie ferme ouvre réessaie essaie réessaye "
    "enregistre supprime attends fais mets utilise va tape indique insère connecte reviens lis active "
    "désactive installe télécharge contacte glisse dépose accepte confirme patiente rappelle souviens "
    "assure dis recommence relance quitte modifie consulte annule continue ajoute crée copie colle "
    "renomme déplace cherche recherche change remplis coche décoche touche branche débranche garde "
    "laisse donne prends regarde écris inscris identifie sauvegarde vide suis remplis définis fournis "
    "oublie imprime partage affiche édite souhaite viens tiens mets sois aie sache"
)
FR_EZ_NOT_VERBS = _words("chez nez assez rez raz-de-marée")

# ---- German: du (informal) against Sie (formal)
DE_INFORMAL = _words(
    "du dich dir dein deine deinen deinem deiner deines euch euer eure euren eurem eurer eures "
    "kannst musst willst möchtest hast bist solltest darfst wirst weißt brauchst findest siehst gibst "
    "hättest würdest könntest müsstest wolltest warst"
)
DE_FORMAL = _words("Sie Ihnen Ihr Ihre Ihren Ihrem Ihrer Ihres")  # with the capital only
DE_IMPERATIVES_INFORMAL = _words(
    "gib klicke klick wähle starte gehe geh öffne schließe speichere lösche versuche prüfe überprüfe "
    "stelle drücke tippe nimm warte melde lade installiere aktiviere deaktiviere bestätige lies sieh "
    "achte kontaktiere verwende benutze füge trage entferne erstelle ändere schreibe ziehe lege sag "
    "sage denk denke vergiss akzeptiere wiederhole schalte verbinde halte sende schicke suche wechsle "
    "beende versuch probiere gehe lass lasse mach mache kopiere füge lege überprüf wähl speicher "
    "aktualisiere gib lege leg schau teile sieh stell stecke"
)
