"""Re-exports the Java rules that are native in Bazel 4.2 (offline stand-in for rules_java)."""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_proto_library = native.java_proto_library
java_runtime = native.java_runtime
java_test = native.java_test
java_toolchain = native.java_toolchain
