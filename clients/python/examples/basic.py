"""Ask a few typed questions about a support message.

    SERVICE_BASE_URL=http://127.0.0.1:8080 SERVICE_API_KEY=sq_... python clients/python/examples/basic.py
"""

from __future__ import annotations

import sys

from structqa import (
    AllowanceExhaustedError,
    APIError,
    Choice,
    Client,
    DeadlineExceededError,
    Noul,
    Score,
    StateTooLongError,
    ask_in_chunks,
)

MESSAGE = "I was charged twice for my March invoice and support has not replied in a week. Fix this today!"

QUESTIONS = {
    "urgent": Noul(instructions="Is this urgent?", criteria={"true": "needs action today", "false": "can wait"}),
    "team": Choice(
        instructions="Which team should handle this?",
        criteria={"billing": "charges, invoices, refunds", "technical": "bugs, outages", "sales": None},
    ),
    "mood": Score(instructions="How upset is the customer?", criteria=["calm", "annoyed", "angry"]),
}


def main() -> int:
    with Client() as client:  # reads SERVICE_BASE_URL and SERVICE_API_KEY
        print("models:", ", ".join(client.models.list().names))
        try:
            r = client.system_one(MESSAGE, QUESTIONS, deadline=30)
        except StateTooLongError:
            # Too long for one call: ask chunk by chunk and combine.
            chunked = ask_in_chunks(client, MESSAGE, QUESTIONS, deadline=120)
            print(f"split into {len(chunked.chunks)} chunks")
            answers = chunked.answers
        except AllowanceExhaustedError as e:
            print(f"monthly allowance used up; resets at {e.resets_at} (see {e.usage_view})")
            return 2
        except DeadlineExceededError as e:
            print(f"no answer within the deadline: {e.last_error}")
            return 3
        except APIError as e:
            print(f"{e.status} {e.code}: {e.message} (request {e.request_id})")
            return 1
        else:
            print(f"answered by {r.model}, request {r.request_id}, {r.usage.processed_tokens} processed tokens")
            answers = r.answers

        print(f"urgent: P(yes) = {answers['urgent'].noul:.2f}")
        team = answers["team"]
        print(f"team:   {team.choice} (confidence {team.confidence:.2f}) {team.probabilities}")
        mood = answers["mood"]
        print(f"mood:   {mood.score:.2f} on 0..2 -> {mood.legend[round(mood.score)]}")

        usage = client.usage()
        print(f"usage:  {usage.used} of {usage.allowance} processed tokens this month; resets {usage.resets_at}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
