# PT_CHECK_LIBELF
# ---------------
# elfutils' libelf, for symbol tables and build IDs.
AC_DEFUN([PT_CHECK_LIBELF], [
  PKG_CHECK_MODULES([LIBELF], [libelf >= 0.170], [],
    [AC_MSG_ERROR([libelf not found: install the Debian package libelf-dev (apt-get install libelf-dev)])])
])
