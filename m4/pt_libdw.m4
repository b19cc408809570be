# PT_CHECK_LIBDW
# --------------
# elfutils' libdw, for source lines (ptprof report --lines).
AC_DEFUN([PT_CHECK_LIBDW], [
  PKG_CHECK_MODULES([LIBDW], [libdw >= 0.170], [],
    [AC_MSG_ERROR([libdw not found: install the Debian package libdw-dev (apt-get install libdw-dev)])])
])
