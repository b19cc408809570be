# PT_CHECK_NCURSES
# ----------------
# ncurses (wide-character build), for ptprof top's terminal view only.
AC_DEFUN([PT_CHECK_NCURSES], [
  PKG_CHECK_MODULES([NCURSES], [ncursesw], [],
    [AC_MSG_ERROR([ncursesw not found: install the Debian package libncurses-dev (apt-get install libncurses-dev)])])
])
