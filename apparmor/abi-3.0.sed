# The sbx profile for an AppArmor parser older than 4.0 (Debian 12): the
# same policy declared as ABI 3.0, without the rule kinds that parser does
# not know and that ABI 3.0 does not mediate (the kernel allows them).
# Used by debian/rules and checked by tests/integration/apparmor-profile.sh:
# it may change nothing else.
s|^abi <abi/4\.0>,$|abi <abi/3.0>,|
/^  allow \(userns\|mqueue\|io_uring\),$/d
