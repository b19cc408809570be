# PT_CHECK_PROTOBUF_C
# -------------------
# protobuf-c (library and protoc-c, which turns proto/profile.proto into
# C at build time) and zlib, for the pprof protobuf output (.pb.gz).
AC_DEFUN([PT_CHECK_PROTOBUF_C], [
  PKG_CHECK_MODULES([PROTOBUF_C], [libprotobuf-c >= 1.3.0], [],
    [AC_MSG_ERROR([libprotobuf-c not found: install the Debian package libprotobuf-c-dev (apt-get install libprotobuf-c-dev)])])
  AC_ARG_VAR([PROTOC_C], [the protobuf-c compiler (protoc-c)])
  AC_PATH_PROGS([PROTOC_C], [protoc-c protoc-gen-c])
  AS_IF([test -z "$PROTOC_C"],
    [AC_MSG_ERROR([protoc-c not found: install the Debian package protobuf-c-compiler (apt-get install protobuf-c-compiler)])])
  PKG_CHECK_MODULES([ZLIB], [zlib >= 1.2.5], [],
    [AC_MSG_ERROR([zlib not found: install the Debian package zlib1g-dev (apt-get install zlib1g-dev)])])
])
