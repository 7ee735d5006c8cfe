/* Every exit status sbx itself chooses, in one place. Each one is a
 * promise of sbx(1), section EXIT STATUS; change them only together with
 * docs/sbx.1 (scripts and CI gates test these numbers). */
#ifndef SBX_EXIT_H
#define SBX_EXIT_H

/* sbx(1) EXIT STATUS, "sbx audit ... 1 when the command fails under P"
 * and "sbx probe ... 1 when they cannot" (network tests cannot be
 * validated here). */
#define SBX_EXIT_VERDICT_NEGATIVE 1

/* sbx(1) EXIT STATUS, "3 with --strict": the command exited 0 but
 * operations were denied (a false green); `sbx audit` exits 3 too when it
 * suspects one. */
#define SBX_EXIT_STRICT 3

/* sbx(1) EXIT STATUS, "sbx audit ... 4 when the evidence is incomplete":
 * no false green was found, but a test was not observed, a denial was
 * attributed to no test nor to the start-up, or the runner's own count
 * disagrees with the tests parsed (issue 25): never "trustworthy". */
#define SBX_EXIT_INCONCLUSIVE 4

/* sbx(1) EXIT STATUS, "124 when the timeout expired, as timeout(1)". */
#define SBX_EXIT_TIMEOUT 124

/* sbx(1) EXIT STATUS, "125 when sbx itself failed": a bad option or
 * profile, a namespace the kernel refused, a mount that failed, a limit
 * that cannot be had (what die() and die_errno() exit with). */
#define SBX_EXIT_FAILURE 125

/* sbx(1) EXIT STATUS, "126 when the command was found but could not be
 * executed". */
#define SBX_EXIT_CANNOT_EXECUTE 126

/* sbx(1) EXIT STATUS, "127 when the command was not found, or a script's
 * #! interpreter was not", as shells answer it. */
#define SBX_EXIT_NOT_FOUND 127

#endif
