# Documentation: the man pages (installed by `make install`), the agent
# integration guide, and the bash completion.
dist_man_MANS = docs/sbx.1 docs/sbx-profile.5
dist_doc_DATA = docs/agents.md

# bash-completion loads a completion by the command's name, so the file is
# installed as "sbx" (automake's _DATA cannot rename: done by hand here).
# bashcompletiondir comes from configure (--with-bash-completion-dir).
EXTRA_DIST += completion/sbx.bash
install-data-local: install-bash-completion
uninstall-local: uninstall-bash-completion
install-bash-completion:
	$(MKDIR_P) '$(DESTDIR)$(bashcompletiondir)'
	$(INSTALL_DATA) '$(srcdir)/completion/sbx.bash' '$(DESTDIR)$(bashcompletiondir)/sbx'
uninstall-bash-completion:
	rm -f '$(DESTDIR)$(bashcompletiondir)/sbx'
.PHONY: install-bash-completion uninstall-bash-completion

# The Debian packaging travels with the source (a native package).
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules \
	debian/sbx.docs debian/source/format debian/tests/control \
	debian/tests/installed debian/.gitignore debian/sbx.install debian/clean
# The AppArmor profile the package installs (tests/integration/apparmor-profile.sh).
EXTRA_DIST += apparmor/sbx apparmor/abi-3.0.sed
