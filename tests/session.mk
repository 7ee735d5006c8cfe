# Tests of the session concern: outbound network, interactive terminals,
# session profiles, nesting.
