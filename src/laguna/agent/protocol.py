"""What the agent and its client agree on: the HTTP paths, the signature's
headers (``signing``), and murano-agent's ``ErrorCode`` numbers that results carry.

A module of constants only, so that the agent's server can import it without
the errors, plans or client (the agent's start imports as little as it can).
"""

HEALTH_PATH = "/v1/health"
PLANS_PATH = "/v1/plans"
#: what each component's plans left on the host, as it is now (``tracking``)
DRIFT_PATH = "/v1/drift"

TIMESTAMP_HEADER = "X-Laguna-Timestamp"
NONCE_HEADER = "X-Laguna-Nonce"
BODY_HEADER = "X-Laguna-Content-SHA256"
SIGNATURE_HEADER = "X-Laguna-Signature"

#: the largest request body an agent reads, unless told otherwise (``--max-request``)
MAX_REQUEST = 64 * 1024 * 1024

PLAN_MALFORMED = 2
FORMAT_UNSUPPORTED = 9
GENERIC_FAILURE = 1
SCRIPT_FAILED = 100
