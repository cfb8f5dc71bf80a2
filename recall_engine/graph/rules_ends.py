"""End patterns as data: sentences that say a job, an employer, a home or a
preference stopped holding ("I quit nursing", "I left Acme", "I no longer live in
Lyon", "I switched from coffee to tea"). Read with ``rules_states``'s patterns
(``STATE_PATTERNS`` ends with these) and written the same way; each ``examples``
entry is a test case (sentence, predicate, object), read with the speaker "Ann".
"""

from __future__ import annotations

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

END_PATTERNS: tuple[StatePattern, ...] = (
    S(
        "quit-job",
        "ended_job",
        SUBJ + HAVE + r"\s+(?:(?:just|finally|recently|officially)\s+)?(?:quit|left|resigned\s+from"
        r"|stopped)\s+(?:(?:my|his|her|their|the)\s+)?(?:(?:old|current|day)\s+)?"
        r"(?P<obj>job|position|career|role|\p{L}+ing)\b",
        keywords=r"quit|left|resigned|stopped",
        occupation=True,
        examples=(
            ("I quit nursing last month.", "ended_job", "nursing"),
            ("I left my job in June.", "ended_job", "job"),
        ),
    ),
    S(
        "quit-job-at",
        "ended_employer",
        SUBJ + HAVE + r"\s+(?:(?:just|finally|recently|officially)\s+)?(?:(?:quit|left)\s+"
        r"(?:(?:my|his|her|their|the)\s+)?(?:(?:old|current|day)\s+)?(?:job|position|role)"
        r"\s+(?:at|with)|resigned\s+from)\s+(?:the\s+)?" + NP,
        keywords=r"quit|left|resigned",
        examples=(
            ("I quit my job at Acme.", "ended_employer", "Acme"),
            ("I resigned from Initech in May.", "ended_employer", "Initech"),
            ("I've left my job at Acme.", "ended_employer", "Acme"),
        ),
    ),
    # "I left Acme": an end of whichever value has that name (a home, an employer); an
    # end that names its value ends no other (``supersession.ends_by_name``)
    *(
        S(
            f"left-{family}",
            f"ended_{family}",
            SUBJ + HAVE + r"\s+(?:(?:just|finally|recently|officially|eventually)\s+)?left\s+"
            r"(?P<obj>(?-i:\p{Lu})[\p{L}\-&]*(?:[ \t]+(?-i:\p{Lu})[\p{L}\-&]*){0,3})" + LEFT_FOR,
            keywords=r"\bleft\b",
            examples=(example,),
        )
        for family, example in (
            ("home", ("We finally left London for good.", "ended_home", "London")),
            ("employer", ("I left Acme last month.", "ended_employer", "Acme")),
        )
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
        examples=(("I moved out of Lyon.", "ended_home", "Lyon"),),
    ),
    S(
        "no-longer-employer",
        "ended_employer",
        SUBJ + r"\s+(?:no\s+longer|" + NOT + r")\s+works?\s+(?:at|for)\s+" + NP,
        keywords=r"\bwork",
        examples=(
            ("I no longer work at Google.", "ended_employer", "Google"),
            ("Ann doesn't work for Acme any longer.", "ended_employer", "Acme"),
        ),
    ),
)
