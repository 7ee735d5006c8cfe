/* One family table (net_families.h): every family a deny rule can name
 * is printed by its AF_ name, never as a number (a denied "socket:tipc"
 * was printed "AF_30" while the parser and the ledger had a table each),
 * and the socket calls a rule may give families to are the ones the
 * filter can see a family for. */
#include "config.h"

#include "ledger.h"
#include "net_families.h"
#include "../tap.h"

#include <string.h>
#include <sys/socket.h>

int main(void)
{
    static const char *const rules[] = { "unix", "local", "inet", "inet6", "netlink", "packet", "vsock",
                                         "bluetooth", "alg", "can", "xdp", "tipc", "key", "appletalk",
                                         "ax25", "x25", "ipx", "rds", "qipcrtr", "smc", "mctp" };
    char buf[32];
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        int f = net_family_from_rule_name(rules[i]);
        const char *name = f >= 0 ? ledger_family_name(f, buf, sizeof buf) : "(none)";
        ok(f >= 0 && strncmp(name, "AF_", 3) == 0 && (name[3] < '0' || name[3] > '9'),
           "deny rule family '%s' is %d, printed %s", rules[i], f, name);
    }
    is_str(ledger_family_name(AF_TIPC, buf, sizeof buf), "AF_TIPC", "AF_TIPC by name (was AF_30)");
    is_int(net_family_from_rule_name("local"), AF_UNIX, "local is unix");
    is_int(net_family_from_rule_name("AF_INET"), -1, "a rule names families in lower case, without AF_");
    is_int(net_family_from_rule_name(""), -1, "an empty name is no family");
    is_str(ledger_family_name(63, buf, sizeof buf), "AF_63", "a family not in the table: its number");
    is_str(ledger_family_name(-5, buf, sizeof buf), "AF_-5", "a negative family: its number, no crash");
    ok(net_call_takes_family("socket") && net_call_takes_family("socketpair") &&
           !net_call_takes_family("bind"), "socket and socketpair take the family as an argument");
    ok(net_call_on_socket("bind") && net_call_on_socket("sendmmsg") && !net_call_on_socket("socket") &&
           !net_call_on_socket("openat"), "bind, sendmmsg act on a socket; socket, openat do not");
    return done_testing();
}
