#include "config.h"

#include "apparmor.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *apparmor_fs_dir(void)
{
    const char *test = getenv("SBX_TEST_APPARMOR_FS");
    const char *dir = test && *test ? test : "/sys/kernel/security/apparmor";
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

int apparmor_profile_loaded(const char *name, char *mode, size_t mode_len)
{
    const char *dir = apparmor_fs_dir();
    if (!dir)
        return -1;
    /* One "NAME (MODE)" line per loaded profile; the kernel makes the
     * file readable to root only (policy is not for every user to read). */
    char *path = xasprintf("%s/profiles", dir);
    char *text = read_file_text(path, 1 << 22, NULL);
    free(path);
    if (!text)
        return -1;
    int found = 0;
    size_t n = strlen(name);
    for (char *line = text; line && *line; ) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strncmp(line, name, n) && line[n] == ' ' && line[n + 1] == '(') {
            found = 1;
            if (mode && mode_len) {
                const char *m = line + n + 2;
                snprintf(mode, mode_len, "%.*s", (int)strcspn(m, ")"), m);
            }
            break;
        }
        line = next;
    }
    free(text);
    return found;
}

void apparmor_current_label(char *buf, size_t len)
{
    buf[0] = '\0';
    const char *test = getenv("SBX_TEST_APPARMOR_LABEL");
    char *text = NULL;
    if (test)
        text = xstrdup(test);
    else if (apparmor_fs_dir()) {
        /* The LSM-specific file since Linux 5.8; the shared one before,
         * which names another LSM's context when AppArmor is not first. */
        text = read_file_text("/proc/self/attr/apparmor/current", 4096, NULL);
        if (!text)
            text = read_file_text("/proc/self/attr/current", 4096, NULL);
    }
    if (!text)
        return;
    text[strcspn(text, "\n")] = '\0';
    snprintf(buf, len, "%s", text);
    free(text);
}

bool apparmor_label_is_sbx(const char *label)
{
    return !strncmp(label, "sbx", 3) && (label[3] == '\0' || label[3] == ' ');
}

bool apparmor_denies_command_capabilities(void)
{
    char label[96];
    apparmor_current_label(label, sizeof label);
    return apparmor_label_is_sbx(label);
}

void apparmor_refuse_kept_capabilities(uint64_t kept)
{
    if (!kept)
        return;
    char label[96];
    apparmor_current_label(label, sizeof label);
    if (apparmor_label_is_sbx(label))
        die("capabilities = cannot be honoured here: this sbx runs under AppArmor's sbx profile "
            "('%s'), which denies the command every capability (sbx_command in "
            "/etc/apparmor.d/sbx), so that sbx is no way around the kernel's restriction of user "
            "namespaces; drop capabilities = from the profile, or run sbx where "
            "kernel.apparmor_restrict_unprivileged_userns = 0 and without that profile", label);
}
