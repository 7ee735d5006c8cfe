# The action's second step: what this runner can validate. sbx probe exits
# 1 when network tests cannot be validated here: the job stops, rather than
# report a green that proves nothing.
set -eu
sbx probe --tap
