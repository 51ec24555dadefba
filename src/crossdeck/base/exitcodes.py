"""Process exit codes of the crossdeck command line, documented in the README.

Scripts branch on these, so a code keeps its meaning once released.
"""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1  # anything not covered below
    USAGE = 2  # click's own code for bad options
    INVALID_INPUT = 3  # a value failed validation before any request was sent
    SERVICE_ERROR = 4  # the service or the venue answered with an error
    NETWORK = 5  # connection failure or timeout after retries
    NO_SECRET = 6  # a wallet key or API key is needed but not stored
    GUARD_REFUSED = 7  # a pre-sign guard refused the quote; nothing was signed
    REFUNDED = 8  # the request ended in refund
    FAILED = 9  # the request failed, or a transaction reverted
    TIMEOUT = 10  # tracking gave up before a final status
    ABORTED = 11  # the user declined a confirmation
