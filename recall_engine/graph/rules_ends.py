"""End patterns as data: sentences that say a job, an employer, a home or a
preference stopped holding ("I quit nursing", "I left Acme", "I no longer live in
Lyon", "I switched from coffee to tea"). Read with ``rules_states``'s patterns
(``STATE_PATTERNS`` ends with these) and written the same way; each ``examples``
entry is a test case (sentence, predicate, object), read with the speaker "Ann".
"""

from __future__ import annotations

from recall_engine.core.graph import EntityType
from recall_engine.graph.named_ends import LEFT
from recall_engine.graph.rules_kinds import SWITCHED_WHAT
from recall_engine.graph.state_pattern import (
    BE,
    HAVE,
    LEFT_FOR,
    NOT,
    NP,
    SUBJ,
    S,
    StatePattern,
)

_OFF_WORK = (
    SUBJ
    + r"(?:"
    # "I retired", "I've just retired from teaching"
    + HAVE
    + r"\s+(?:(?:just|finally|recently|officially|already)\s+)?"
    r"retired\b(?!\s+(?:the|a|an|my|our|his|her|their|it|them|this|that)\b)"
    # "I was laid off", "I got fired" (not "fired up"); "from Acme" names the employer
    r"|(?:\s+(?:was|were|got|get|'ve\s+been|have\s+been|has\s+been|had\s+been))"
    r"(?:\s+(?:just|finally|recently|suddenly))?\s+(?:laid\s+off|fired|sacked|let\s+go"
    r"|made\s+redundant)\b(?!\s+up\b)(?!\s+(?:from|by|at)\s+(?:the\s+)?(?-i:\p{Lu})))"
)
"""Ends of work that name neither the employer nor the job: each describes both."""

END_PATTERNS: tuple[StatePattern, ...] = (
    S(
        "quit-job",
        "ended_job",
        SUBJ + HAVE + r"\s+(?:(?:just|finally|recently|officially)\s+)?(?:quit|left|resigned\s+from"
        r"|stopped|lost)\s+(?:(?:my|his|her|their|the)\s+)?(?:(?:old|current|day)\s+)?"
        r"(?P<obj>job|position|career|role|\p{L}+ing)\b",
        keywords=r"quit|left|resigned|stopped|lost",
        occupation=True,
        examples=(
            ("I quit nursing last month.", "ended_job", "nursing"),
            ("I left my job in June.", "ended_job", "job"),
            ("I've just lost my job.", "ended_job", "job"),
        ),
    ),
    S(
        "quit-job-employer",
        "ended_employer",
        # "I quit my job" ends the employer too; "my job at Acme" names it (below)
        SUBJ + HAVE + r"\s+(?:(?:just|finally|recently|officially)\s+)?(?:quit|left|resigned\s+from"
        r"|lost)\s+(?:my|his|her|their|the)\s+(?:(?:old|current|day)\s+)?"
        r"(?P<obj>job|position|role)\b(?!\s+(?:at|with)\b)",
        keywords=r"quit|left|resigned|lost",
        examples=(
            ("I quit my job.", "ended_employer", "job"),
            ("I've just lost my job.", "ended_employer", "job"),
        ),
    ),
    *(
        S(
            f"off-work-{family}",
            f"ended_{family}",
            _OFF_WORK,
            value="job",
            keywords=r"retired|laid|fired|sacked|let\s+go|redundant",
            examples=tuple((sentence, f"ended_{family}", "job") for sentence in sentences),
        )
        for family, sentences in (
            ("employer", ("I retired last month.", "I got fired last week.")),
            ("job", ("I was laid off in May.", "I retired from teaching.")),
        )
    ),
    S(
        "dismissed-from",
        "ended_employer",
        SUBJ + r"\s+(?:was|were|got|'ve\s+been|have\s+been|has\s+been|had\s+been)"
        r"(?:\s+(?:just|finally|recently|suddenly))?\s+(?:laid\s+off|fired|sacked|let\s+go"
        r"|made\s+redundant)\s+(?:from|by|at)\s+(?:the\s+)?" + NP,
        keywords=r"laid|fired|sacked|let\s+go|redundant",
        object_type=EntityType.ORGANIZATION,
        examples=(("I was laid off from Acme.", "ended_employer", "Acme"),),
    ),
    S(
        "quit-job-at",
        "ended_employer",
        SUBJ + HAVE + r"\s+(?:(?:just|finally|recently|officially)\s+)?(?:(?:quit|left|lost)\s+"
        r"(?:(?:my|his|her|their|the)\s+)?(?:(?:old|current|day)\s+)?(?:job|position|role)"
        r"\s+(?:at|with)|resigned\s+from)\s+(?:the\s+)?" + NP,
        keywords=r"quit|left|resigned|lost",
        object_type=EntityType.ORGANIZATION,
        examples=(
            ("I quit my job at Acme.", "ended_employer", "Acme"),
            ("I resigned from Initech in May.", "ended_employer", "Initech"),
            ("I've left my job at Acme.", "ended_employer", "Acme"),
            ("I lost my job at Door Dash.", "ended_employer", "Door Dash"),
        ),
    ),
    # "I left Acme": an end of whichever value has that name, a home or an employer; the
    # sentence does not say which, so it states "left" and the graph stage settles the
    # family from what the value is (``graph.named_ends``): one end, never two
    S(
        "left",
        LEFT,
        SUBJ + HAVE + r"\s+(?:(?:just|finally|recently|officially|eventually)\s+)?left\s+"
        r"(?P<obj>(?-i:\p{Lu})[\p{L}\-&]*(?:[ \t]+(?-i:\p{Lu})[\p{L}\-&]*){0,3})" + LEFT_FOR,
        keywords=r"\bleft\b",
        examples=(
            ("We finally left London for good.", LEFT, "London"),
            ("I left Acme last month.", LEFT, "Acme"),
        ),
    ),
    S(
        "no-longer-job",
        "ended_job",
        SUBJ + BE + r"\s+(?:no\s+longer|not)\s+(?:a|an)\s+" + NP,
        keywords=r"\bnot?\b",
        occupation=True,
        examples=(("I'm not a nurse anymore.", "ended_job", "nurse"),),
    ),
    S(
        "switched-from",
        "ended_preference",
        SUBJ + r"(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|now|completely)\s+)?"
        r"(?:switched|made\s+the\s+switch|changed\s+over)\s+" + SWITCHED_WHAT + r"(?:over\s+)?"
        r"from\s+(?:the\s+)?" + NP,
        keywords=r"switch|changed\s+over",
        kinded=True,
        examples=(
            ("I switched from coffee to tea.", "ended_preference", "coffee"),
            ("I switched my phone from the Pixel to an iPhone.", "ended_preference_phone", "Pixel"),
        ),
    ),
    S(
        "no-longer-home",
        "ended_home",
        SUBJ + r"\s+(?:no\s+longer|" + NOT + r")\s+lives?\s+in\s+" + NP,
        keywords=r"\bliv",
        object_type=EntityType.PLACE,
        examples=(
            ("I don't live in Lyon anymore.", "ended_home", "Lyon"),
            ("I no longer live in Lyon.", "ended_home", "Lyon"),
        ),
    ),
    S(
        "moved-out",
        "ended_home",
        SUBJ + r"\s+(?:(?:just|finally)\s+)?moved\s+(?:out\s+of|away\s+from)\s+" + NP,
        keywords=r"moved",
        object_type=EntityType.PLACE,
        examples=(("I moved out of Lyon.", "ended_home", "Lyon"),),
    ),
    S(
        "no-longer-employer",
        "ended_employer",
        SUBJ + r"\s+(?:no\s+longer|" + NOT + r")\s+works?\s+(?:at|for)\s+" + NP,
        keywords=r"\bwork",
        object_type=EntityType.ORGANIZATION,
        examples=(
            ("I no longer work at Google.", "ended_employer", "Google"),
            ("Ann doesn't work for Acme any longer.", "ended_employer", "Acme"),
        ),
    ),
)
