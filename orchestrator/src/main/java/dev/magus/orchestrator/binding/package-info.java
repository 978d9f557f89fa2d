/**
 * The binding layer for code that runs inside the JVM: a {@link dev.magus.orchestrator.binding.Sandbox}
 * session checks the same policy a confined child gets before it touches a path, and reports each
 * refusal on the session's event stream with {@code layer=binding}. It covers only the calls that go
 * through it; the kernel layer is what confines children.
 */
package dev.magus.orchestrator.binding;
