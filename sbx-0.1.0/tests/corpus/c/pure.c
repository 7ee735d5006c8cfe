/* A suite that touches no network. */
#include <stdio.h>

static unsigned gcd(unsigned a, unsigned b) { return b ? gcd(b, a % b) : a; }

int main(void)
{
    int ok = gcd(84, 36) == 12;
    printf("%s 1 - gcd\n", ok ? "ok" : "not ok");
    return ok ? 0 : 1;
}
