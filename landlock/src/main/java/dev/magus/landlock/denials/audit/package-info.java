/**
 * Source 2: exact kernel denials from Landlock's audit records ({@code AUDIT_LANDLOCK_ACCESS},
 * {@code AUDIT_LANDLOCK_DOMAIN}, Linux 6.15+, ABI 7+), read from the audit netlink read-log
 * multicast group. Record parsing and run correlation are pure; {@code AuditNetlink} is the
 * only native code.
 */
package dev.magus.landlock.denials.audit;
