/**
 * The network policy of a run, as declared and merged: {@code sandbox.network}'s mode (the
 * workspace's alone), the hosts a run may reach through its proxy, the loopback ports it may
 * connect to directly and the ports it may listen on; and the pure facts the proxy decides by
 * (host patterns, the class of an address, what to tell a person about a refusal). Nothing
 * here opens a socket or resolves a name.
 */
package dev.magus.policy.net;
