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

enum terminal_mode terminal_mode_for(bool in, bool out, bool err)
{
    if (in)
        return out ? TERMINAL_INTERACTIVE : TERMINAL_LINES;
    return out || err ? TERMINAL_OUTPUT : TERMINAL_NONE;
}

enum terminal_mode terminal_wanted(void)
{
    return terminal_mode_for(isatty(STDIN_FILENO), isatty(STDOUT_FILENO), isatty(STDERR_FILENO));
}

/* The caller's terminal, for its settings and window size: the first of
 * 0, 1, 2 that is one. */
static int caller_terminal(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (isatty(fd))
            return fd;
    return STDIN_FILENO;
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

int terminal_open_inside(int channel_fd, enum terminal_mode mode)
{
    /* /dev/ptmx is the sandbox's: with dev = minimal a link to pts/ptmx
     * of the devpts instance mount.c mounted (newinstance), so the slave
     * is /dev/pts/N inside and nowhere on the host; with dev = none the
     * devpts that /dev/pts of the sandbox's root holds. */
    int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0)
        die_errno("opening /dev/ptmx inside the sandbox for the command's terminal (a "
                  "standard descriptor is a terminal; run with </dev/null >FILE 2>&1 for none)");
    int unlock = 0;
    if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
        die_errno("unlocking the sandbox's pty (TIOCSPTLCK)");
    int slave = open_slave(master);
    if (slave < 0)
        die_errno("opening the slave of the sandbox's pty");

    /* The command starts with the caller's settings (erase key, modes) and
     * window size, which init reads from the caller's terminal it still
     * holds: set before the command exists, so it never sees others. */
    int caller = caller_terminal();
    struct termios tio;
    if (tcgetattr(caller, &tio) == 0) {
        /* LINES: the caller's terminal echoes what is typed already */
        if (mode == TERMINAL_LINES)
            tio.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
        if (tcsetattr(slave, TCSANOW, &tio) < 0)
            die_errno("copying the terminal's settings to the sandbox's pty");
    }
    struct winsize ws;
    if (ioctl(caller, TIOCGWINSZ, &ws) == 0 && ioctl(slave, TIOCSWINSZ, &ws) < 0)
        die_errno("copying the window size to the sandbox's pty");

    if (!channel_send(channel_fd, CHANNEL_TERMINAL_FD, 0, master))
        die_errno("passing the pty's master to the supervisor");
    close(master);

    /* init leads a session of the sandbox's own by now (init.c): the
     * caller's terminal is no longer the controlling terminal of anything
     * inside, so TIOCSTI (which wants the caller's controlling terminal or
     * CAP_SYS_ADMIN in the initial user namespace) and tcsetpgrp() (only
     * on one's controlling terminal) have nothing of the caller's to act
     * on; the pty becomes its controlling terminal. */
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

bool terminal_job_stop(pid_t target)
{
    struct sigaction sa;
    if (sigaction(SIGTSTP, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
        return false;
    sigset_t tstp;
    sigemptyset(&tstp);
    sigaddset(&tstp, SIGTSTP);
    /* Delivered, and sbx stopped, before kill() returns. */
    sigprocmask(SIG_UNBLOCK, &tstp, NULL);
    kill(target, SIGTSTP);
    sigprocmask(SIG_BLOCK, &tstp, NULL);
    return true;
}
