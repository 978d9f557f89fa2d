package dev.magus.policy.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AddressClassTest {

    // Literals only: InetAddress.getByName parses them without a lookup.
    @ParameterizedTest
    @CsvSource({
        "127.0.0.1, LOOPBACK", "127.255.0.9, LOOPBACK", "::1, LOOPBACK",
        "169.254.169.254, LINK_LOCAL", "169.254.0.1, LINK_LOCAL", "fe80::1, LINK_LOCAL", "febf::1, LINK_LOCAL",
        "10.1.2.3, PRIVATE", "172.16.0.1, PRIVATE", "172.31.255.255, PRIVATE", "192.168.1.1, PRIVATE",
        "172.15.0.1, PUBLIC", "172.32.0.1, PUBLIC", "192.169.0.1, PUBLIC",
        "100.64.0.1, SHARED", "100.127.255.255, SHARED", "100.63.0.1, PUBLIC", "100.128.0.1, PUBLIC",
        "fc00::1, UNIQUE_LOCAL", "fd00:ec2::254, UNIQUE_LOCAL",
        "0.0.0.0, UNSPECIFIED", "0.1.2.3, UNSPECIFIED", "::, UNSPECIFIED",
        "224.0.0.1, MULTICAST", "255.255.255.255, MULTICAST", "ff02::1, MULTICAST",
        "93.184.216.34, PUBLIC", "2606:2800:220:1::1, PUBLIC", "8.8.8.8, PUBLIC",
        // IPv4 inside IPv6 is classed by the IPv4 address.
        "::ffff:127.0.0.1, LOOPBACK", "::ffff:169.254.169.254, LINK_LOCAL", "::ffff:10.0.0.1, PRIVATE",
        "::127.0.0.1, LOOPBACK", "64:ff9b::a9fe:a9fe, LINK_LOCAL", "64:ff9b::808:808, PUBLIC",
    })
    void classes(String literal, AddressClass expected) throws UnknownHostException {
        assertThat(AddressClass.of(InetAddress.getByName(literal))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"LOOPBACK, true", "LINK_LOCAL, true", "PRIVATE, true", "SHARED, true", "UNIQUE_LOCAL, true",
        "UNSPECIFIED, true", "MULTICAST, true", "PUBLIC, false"})
    void onlyPublicAddressesAreReachableThroughAPattern(AddressClass c, boolean internal) {
        assertThat(c.internal()).isEqualTo(internal);
    }

    @org.junit.jupiter.api.Test
    void ipv4MappedAddressesAreClassedLikeTheirIpv4() {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = (byte) 169;
        mapped[13] = (byte) 254;
        mapped[14] = (byte) 169;
        mapped[15] = (byte) 254;
        assertThat(AddressClass.of(mapped)).isEqualTo(AddressClass.LINK_LOCAL);
    }
}
