"""Word lists the rule-based extractor reads: data, kept apart from the logic.

Every entry is lowercase. The lists are deliberately modest (English, common
places); first names come from a gazetteer package. Anything they miss falls
back to CONCEPT, which entity resolution upgrades when another mention knows better.
"""

from __future__ import annotations

from recall_engine.graph.gazetteer import first_names


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> frozenset[str]:
    return frozenset(p.strip() for p in text.split(",") if p.strip())


WEEKDAYS = _words("monday tuesday wednesday thursday friday saturday sunday")
MONTHS = _words("january february march april june july august september october november december")

# Capitalised words that are not names on their own: a span is cut at them.
NOT_NAMES = (
    WEEKDAYS
    | MONTHS
    | _words(
        """
    i i'm i've i'd i'll im ive a an the this that these those there here it it's its
    he she we they you your yours my mine our ours his her hers their them me us him
    who what when where why how which whose whoever whatever
    and or but so if then than because since while though although yet also just
    hey hi hello hiya yo bye goodbye thanks thank thx ty wow yeah yes yep yup no nope nah
    oh ooh ah aw aww haha lol omg ok okay sure cool awesome great nice good wonderful
    amazing congrats congratulations welcome sorry please well anyway btw glad love
    yesterday today tomorrow tonight now later soon recently lately sometimes always
    never often maybe perhaps definitely absolutely totally really actually honestly
    mom mum dad mommy daddy mama papa grandma grandpa granny nana sis bro mother father
    in on at to from for with by of about as into over after before during until
    do does did don't doesn't didn't is are was were be been am can could will would
    should shall might must may let let's what's that's there's here's how's it'd
    not all any each every some many much more most few both either neither none
    one two three four five six seven eight nine ten first second last next new old
    mr mrs ms dr prof sir madam
    """
    )
)

# Sentence-initial words never set aside as possible names, even with a
# possessive ("Today's", "Everyone's"): they may not claim a known name.
COMMON_SENTENCE_STARTS = _words(
    """
    today yesterday tomorrow tonight everyone everybody nobody noone someone somebody
    anyone anybody everything nothing something anything life nature family people
    children women men world time year week month day weekend morning evening night
    another other others each such whoever
    """
)

# Weekday and month abbreviations ("Wed", "Sept"): alone they are dates, not names.
DATE_ABBREVIATIONS = _words(
    """
    mon tue tues wed weds thu thur thurs fri sat sun
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
)

# Lowercase words allowed inside a capitalised span: "University of Oxford".
SPAN_CONNECTORS = _words("of the de da di del della van von der den la le du y &")

# First names come from a maintained gazetteer (see gazetteer.py), minus the words
# above that are never names on their own ("May", "Will", "June").
FIRST_NAMES = first_names() - NOT_NAMES - COMMON_SENTENCE_STARTS

# A company's legal form, which everyday speech leaves off ("Acme" for "Acme Corp").
LEGAL_FORMS = _words(
    """
    inc inc. incorporated ltd ltd. limited llc llp corp corp. corporation co co. company
    gmbh ag plc sa
    """
)
ORGANIZATION_SUFFIXES = LEGAL_FORMS | _words(
    """
    group university college school academy institute institution foundation association
    society agency bank labs lab laboratories technologies systems software studios
    department ministry council committee commission party union club church hospital
    clinic center centre network airlines airways motors partners holdings ventures
    """
)
ORGANIZATION_PREFIXES = _words("university bank college institute department ministry")

PLACE_SUFFIXES = _words(
    """
    city town village street st road rd avenue ave boulevard lane square park river lake
    mountain mountains mount hills valley canyon beach bay island islands coast county
    state province region district republic kingdom desert forest falls ocean sea
    """
)
PLACE_PREFIXES = _words("mount mt lake fort port saint san santa los las cape isle")

EVENT_SUFFIXES = _words(
    """
    festival conference summit war olympics championship cup parade concert marathon
    fair expo election wedding tournament gala convention ceremony
    """
)

PLACES = _phrases(
    """
    afghanistan, albania, algeria, argentina, armenia, australia, austria, bangladesh,
    belgium, bolivia, brazil, bulgaria, cambodia, canada, chile, china, colombia, croatia,
    cuba, czechia, denmark, ecuador, egypt, england, estonia, ethiopia, finland, france,
    germany, ghana, greece, hungary, iceland, india, indonesia, iran, iraq, ireland,
    israel, italy, jamaica, japan, jordan, kenya, korea, latvia, lebanon, lithuania,
    malaysia, mexico, morocco, nepal, netherlands, new zealand, nigeria, norway, pakistan,
    peru, philippines, poland, portugal, romania, russia, scotland, serbia, singapore,
    slovakia, south africa, south korea, spain, sri lanka, sweden, switzerland, syria,
    taiwan, thailand, turkey, uganda, ukraine, united kingdom, united states, usa, uk,
    uruguay, venezuela, vietnam, wales, europe, asia, africa, america, north america,
    south america, antarctica, oceania, amsterdam, athens, bangkok, barcelona, beijing,
    berlin, boston, brussels, budapest, buenos aires, cairo, chicago, copenhagen, dallas,
    delhi, dubai, dublin, edinburgh, florence, geneva, hong kong, houston, istanbul,
    jakarta, lisbon, london, los angeles, lyon, madrid, manchester, melbourne, miami,
    milan, montreal, moscow, mumbai, munich, nairobi, new delhi, new york, new york city,
    oslo, paris, prague, rome, san francisco, seattle, seoul, shanghai, stockholm, sydney,
    tokyo, toronto, vancouver, venice, vienna, warsaw, washington, zurich, california,
    texas, florida, hawaii, alaska, oregon, colorado, new jersey, new mexico, arizona,
    nevada, utah, georgia, virginia, ohio, michigan, massachusetts, yosemite, ulm
    """
)

# Prepositions after which an unknown name is taken for a place: "moved to Lyon".
PLACE_PREPOSITIONS = _words("in to from near around across into towards toward")

# Lowercase words inside a quoted title: "The Lord of the Rings".
TITLE_SMALL_WORDS = _words("a an the of and or in on at to for with from by de la le")

# Abbreviations whose full stop does not end a sentence.
ABBREVIATIONS = _words(
    "dr mr mrs ms prof sr jr st mt vs etc e.g i.e inc ltd co corp no fig approx dept est"
)

# Adjectives ending in -ed that do not say something happened.
NOT_PAST_EVENTS = _words(
    """
    excited interested tired bored scared worried pleased amazed inspired blessed
    supposed used obsessed stressed motivated interested overwhelmed relaxed thrilled
    """
)

# First words of "X is a ..." noun phrases that describe no kind of thing.
NOT_KINDS = _words(
    "bit lot little few couple kind sort great good big huge long part way mix kid child teen"
)

# Words that end a noun-phrase object ("went to the beach *last* week"; "adopted a cat
# *named* Luna": the cat, whose name the pet pattern reads).
NP_STOP = _words(
    """
    and but or who that which in at for with of from to on by as because so when while if
    than like about into after before since yesterday today tonight tomorrow last next this
    these those there here again too now together recently soon just really very i you he
    she we they it my your our their is was are were be been has have had do did will would
    can could should lot bit during made some named called
    """
)

# Heads of idioms, not things: "made a difference", "got some new offers".
NOT_OBJECTS = _words(
    """
    difference mistake decision point change effort impact sense progress call note living
    deal break start move choice offers offer time day lot way friends friend addition
    """
)
