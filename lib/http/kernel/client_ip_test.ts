import assert from "node:assert/strict";
import { quotaAddressOf } from "./client_ip.ts";

Deno.test("quotaAddressOf() counts an IPv6 address as its /64", () => {
  assert.equal(quotaAddressOf("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  assert.equal(quotaAddressOf("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  assert.equal(quotaAddressOf("2001:DB8:1:2:ffff:eeee:dddd:cccc"), "2001:db8:1:2::/64");
  assert.equal(quotaAddressOf("2001:0db8:0001:0002::abcd"), "2001:db8:1:2::/64");
  assert.equal(quotaAddressOf("[2001:db8:1:2::9]"), "2001:db8:1:2::/64");
  assert.equal(quotaAddressOf("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(quotaAddressOf("::1"), "0:0:0:0::/64");
  assert.notEqual(quotaAddressOf("2001:db8:1:3::1"), quotaAddressOf("2001:db8:1:2::1"));
});

Deno.test("quotaAddressOf() keeps IPv4 and reads IPv4-mapped IPv6 as IPv4", () => {
  assert.equal(quotaAddressOf("192.0.2.1"), "192.0.2.1");
  assert.equal(quotaAddressOf("::ffff:192.0.2.1"), "192.0.2.1");
  assert.equal(quotaAddressOf("::FFFF:c000:0201"), "192.0.2.1");
  assert.equal(quotaAddressOf("0:0:0:0:0:ffff:192.0.2.1"), "192.0.2.1");
});

Deno.test("quotaAddressOf() keeps what does not parse as it is", () => {
  for (
    const s of [
      "unknown",
      "1:2:3",
      "1::2::3",
      "2001:db8::g",
      "::ffff:300.1.1.1",
      "1:2:3:4:5:6:7:8:9",
    ]
  ) {
    assert.equal(quotaAddressOf(s), s);
  }
});
