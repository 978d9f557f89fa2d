/**
 * A run's network proxy (network mode {@code proxy}): an HTTP CONNECT and plain-HTTP forward
 * proxy on 127.0.0.1, one per run, on Netty, that lets a confined child reach
 * only the hosts its policy declares; the kernel's TCP rules keep the child from going round
 * it. Also the variables that point the child at it.
 */
package dev.magus.orchestrator.network;
