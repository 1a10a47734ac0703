"""What the agent and its client agree on: the HTTP paths, the token's header,
and murano-agent's ``ErrorCode`` numbers that results carry.

A module of constants only, so that the agent's server can import it without
the errors, plans or client (the agent's start imports as little as it can).
"""

TOKEN_HEADER = "X-Laguna-Agent-Token"
HEALTH_PATH = "/v1/health"
PLANS_PATH = "/v1/plans"

PLAN_MALFORMED = 2
FORMAT_UNSUPPORTED = 9
GENERIC_FAILURE = 1
SCRIPT_FAILED = 100
