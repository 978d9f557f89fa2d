package dev.magus.policy.net;

import java.net.InetAddress;

/**
 * Where an address leads, for the proxy's rebinding check: a declared name that resolves into
 * this machine, the local network or the cloud's metadata service is refused unless that exact
 * name is declared, so {@code *.example.org} cannot be pointed at {@code 169.254.169.254} by
 * whoever controls its DNS. Pure: a function of the address bytes.
 *
 * <p>An IPv6 address that carries an IPv4 one (mapped {@code ::ffff:a.b.c.d}, compatible
 * {@code ::a.b.c.d}, NAT64 {@code 64:ff9b::a.b.c.d}) is classed by the IPv4 address inside it:
 * {@code ::ffff:127.0.0.1} reaches loopback as surely as {@code 127.0.0.1}.
 */
public enum AddressClass {
    PUBLIC("a public address"),
    LOOPBACK("loopback (this machine)"),
    LINK_LOCAL("link-local (169.254.0.0/16, fe80::/10: the cloud metadata endpoint lives here)"),
    PRIVATE("a private network (10/8, 172.16/12, 192.168/16)"),
    SHARED("carrier-grade NAT (100.64.0.0/10)"),
    UNIQUE_LOCAL("unique-local IPv6 (fc00::/7)"),
    UNSPECIFIED("unspecified or 'this network' (0.0.0.0/8, ::)"),
    MULTICAST("multicast or broadcast");

    private final String description;

    AddressClass(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** Whether reaching it needs that exact host declared: everything but {@link #PUBLIC}. */
    public boolean internal() {
        return this != PUBLIC;
    }

    public static AddressClass of(InetAddress address) {
        return of(address.getAddress());
    }

    /** @param a 4 (IPv4) or 16 (IPv6) bytes, network order */
    public static AddressClass of(byte[] a) {
        if (a.length == 4) {
            return ipv4(a[0] & 0xff, a[1] & 0xff, a[2] & 0xff, a[3] & 0xff);
        }
        if (a.length != 16) {
            throw new IllegalArgumentException("an address has 4 or 16 bytes, not " + a.length);
        }
        if (embedsIpv4(a)) {
            return ipv4(a[12] & 0xff, a[13] & 0xff, a[14] & 0xff, a[15] & 0xff);
        }
        boolean zeroHead = true;
        for (int i = 0; i < 15; i++) {
            zeroHead &= a[i] == 0;
        }
        if (zeroHead && a[15] == 1) {
            return LOOPBACK;
        }
        if (zeroHead && a[15] == 0) {
            return UNSPECIFIED;
        }
        int b0 = a[0] & 0xff;
        int b1 = a[1] & 0xff;
        if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
            return LINK_LOCAL;
        }
        if (b0 == 0xfe && (b1 & 0xc0) == 0xc0) {
            // Deprecated site-local (fec0::/10): a private network by another name.
            return PRIVATE;
        }
        if ((b0 & 0xfe) == 0xfc) {
            return UNIQUE_LOCAL;
        }
        if (b0 == 0xff) {
            return MULTICAST;
        }
        return PUBLIC;
    }

    /** ::ffff:0:0/96 (mapped), ::/96 but :: and ::1 (compatible), 64:ff9b::/96 (NAT64). */
    private static boolean embedsIpv4(byte[] a) {
        boolean tenZero = true;
        for (int i = 0; i < 10; i++) {
            tenZero &= a[i] == 0;
        }
        if (tenZero && (a[10] & 0xff) == 0xff && (a[11] & 0xff) == 0xff) {
            return true;
        }
        if (tenZero && a[10] == 0 && a[11] == 0) {
            // ::a.b.c.d, but not :: or ::1, which are IPv6's own unspecified and loopback.
            return (a[12] | a[13] | a[14]) != 0 || (a[15] & 0xff) > 1;
        }
        boolean nat64 = (a[0] & 0xff) == 0x00 && (a[1] & 0xff) == 0x64 && (a[2] & 0xff) == 0xff && (a[3] & 0xff) == 0x9b;
        for (int i = 4; i < 12 && nat64; i++) {
            nat64 = a[i] == 0;
        }
        return nat64;
    }

    private static AddressClass ipv4(int a, int b, int c, int d) {
        if (a == 127) {
            return LOOPBACK;
        }
        if (a == 0) {
            return UNSPECIFIED;
        }
        if (a == 169 && b == 254) {
            return LINK_LOCAL;
        }
        if (a == 10 || (a == 172 && (b & 0xf0) == 16) || (a == 192 && b == 168)) {
            return PRIVATE;
        }
        if (a == 100 && (b & 0xc0) == 64) {
            return SHARED;
        }
        if (a >= 224) {
            // 224/4 multicast, 240/4 reserved, 255.255.255.255 broadcast: never a TCP peer.
            return MULTICAST;
        }
        return PUBLIC;
    }
}
