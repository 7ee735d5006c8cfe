#include "config.h"

#include "terminal.h"

#include "channel.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

bool terminal_wanted(void)
{
    return isatty(STDIN_FILENO);
}

/* The slave of master, opened through the master itself: TIOCGPTPEER
 * (Linux 4.13) cannot be tricked by what is mounted at /dev/pts, which a
 * path lookup of ptsname() would trust. */
static int open_slave(int master)
{
    int slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave >= 0 || (errno != EINVAL && errno != ENOTTY))
        return slave;
    unsigned n;
    if (ioctl(master, TIOCGPTN, &n) < 0)
        return -1;
    char path[32];
    snprintf(path, sizeof path, "/dev/pts/%u", n);
    return open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

int terminal_open_inside(int channel_fd)
{
    /* /dev/ptmx is the sandbox's: with dev = minimal a link to pts/ptmx
     * of the devpts instance mount.c mounted (newinstance), so the slave
     * is /dev/pts/N inside and nowhere on the host; with dev = none the
     * devpts that /dev/pts of the sandbox's root holds. */
    int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0)
        die_errno("opening /dev/ptmx inside the sandbox for the command's terminal (standard "
                  "input is a terminal; run with </dev/null for none)");
    int unlock = 0;
    if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
        die_errno("unlocking the sandbox's pty (TIOCSPTLCK)");
    int slave = open_slave(master);
    if (slave < 0)
        die_errno("opening the slave of the sandbox's pty");

    /* The command starts with the caller's settings (erase key, modes) and
     * window size, which init reads from the caller's terminal it still
     * holds: set before the command exists, so it never sees others. */
    struct termios tio;
    if (tcgetattr(STDIN_FILENO, &tio) == 0 && tcsetattr(slave, TCSANOW, &tio) < 0)
        die_errno("copying the terminal's settings to the sandbox's pty");
    struct winsize ws;
    if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 && ioctl(slave, TIOCSWINSZ, &ws) < 0)
        die_errno("copying the window size to the sandbox's pty");

    if (!channel_send(channel_fd, CHANNEL_TERMINAL_FD, 0, master))
        die_errno("passing the pty's master to the supervisor");
    close(master);

    /* A session of the sandbox's own, led by init: the caller's terminal
     * is no longer the controlling terminal of anything inside, so
     * TIOCSTI (which wants the caller's controlling terminal or
     * CAP_SYS_ADMIN in the initial user namespace) and tcsetpgrp() (only
     * on one's controlling terminal) have nothing of the caller's to act
     * on. init leads it rather than the command so that the command's
     * process group has a parent in the same session: a group without one
     * is orphaned, and the kernel discards the SIGTSTP of Ctrl-Z sent to
     * it (POSIX; kernel/signal.c), so a plain `sbx run -- sleep` could
     * not be stopped. */
    if (setsid() < 0)
        die_errno("setsid for the command's terminal");
    if (ioctl(slave, TIOCSCTTY, 0) < 0)
        die_errno("making the sandbox's pty the controlling terminal (TIOCSCTTY)");
    return slave;
}

void terminal_release_caller(int slave)
{
    /* /proc/1/fd would otherwise still lead to the caller's terminal;
     * init's own late messages go to the pty, which the relay shows. */
    for (int fd = 0; fd <= 2; fd++)
        if (fd != slave && isatty(fd) && dup2(slave, fd) < 0)
            die_errno("replacing init's descriptor %d with the sandbox's pty", fd);
    if (slave > 2)
        close(slave);
}

void terminal_attach_command(int slave)
{
    if (setpgid(0, 0) < 0)
        die_errno("setpgid for the command");
    /* From a group that is not the foreground one, tcsetpgrp() raises
     * SIGTTOU, which stops the caller unless blocked. The caller's mask
     * is restored before exec. */
    sigset_t ttou;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, NULL);
    if (tcsetpgrp(slave, getpgrp()) < 0)
        die_errno("making the command the foreground of the sandbox's pty (tcsetpgrp)");
    for (int fd = 0; fd <= 2; fd++)
        if (fd != slave && isatty(fd) && dup2(slave, fd) < 0)
            die_errno("giving the command the sandbox's pty as descriptor %d", fd);
}
