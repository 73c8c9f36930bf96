import { describe, expect, it } from "vitest";
import { imageAddress } from "../src/lib/image-address";

const page = { origin: "http://127.0.0.1:8888", hostname: "127.0.0.1" };
const hub = { origin: "https://hub.example.org", hostname: "hub.example.org" };

function reason(src: string, where = page): string {
  const address = imageAddress(src, where);
  if (address.ok) throw new Error(`${src} was allowed as ${address.href}`);
  return address.reason;
}

describe("image addresses", () => {
  it.each([
    ["http://pixel.example/p.png", "only https images are loaded, and this address is http:"],
    ["data:image/png;base64,AAAA", "only https images are loaded, and this address is data:"],
    ["javascript:alert(1)", "only https images are loaded, and this address is javascript:"],
    ["/logout", "a relative address would be fetched from the notebook server"],
    ["//pixel.example/p.png", "a relative address would be fetched from the notebook server"],
    ["https://user:pw@pixel.example/p.png", "the address carries a user name or password"],
  ])("refuses %s: %s", (src, why) => {
    expect(reason(src)).toBe(why);
  });

  it("refuses the notebook server itself, on any port", () => {
    expect(reason("http://127.0.0.1:8888/logout")).toBe("it is the notebook server's own address");
    expect(reason("https://hub.example.org/user/me/logout", hub)).toBe("it is the notebook server's own address");
    expect(reason("https://hub.example.org:8443/x.png", hub)).toBe("it is on the notebook server's own host");
    expect(reason("https://HUB.example.org./x.png", hub)).toMatch(/notebook server's own/);
  });

  it.each([
    // Loopback, in every spelling URL accepts.
    ["https://127.0.0.1:9999/x.png", "a loopback address (this computer)"],
    ["https://127.1/x.png", "a loopback address (this computer)"],
    ["https://2130706433/x.png", "a loopback address (this computer)"],
    ["https://0x7f.0.0.1/x.png", "a loopback address (this computer)"],
    ["https://0177.0.0.1/x.png", "a loopback address (this computer)"],
    ["https://0x7f000001/x.png", "a loopback address (this computer)"],
    ["https://127.0.0.1./x.png", "a loopback address (this computer)"],
    ["https://[::1]/x.png", "a loopback address (this computer)"],
    ["https://[0:0:0:0:0:0:0:1]/x.png", "a loopback address (this computer)"],
    ["https://[::ffff:127.0.0.1]/x.png", "a loopback address (this computer)"],
    ["https://[::ffff:7f00:1]/x.png", "a loopback address (this computer)"],
    ["https://[::127.0.0.1]/x.png", "a loopback address (this computer)"],
    ["https://[64:ff9b::7f00:1]/x.png", "a loopback address (this computer)"],
    ["https://[2002:7f00:1::]/x.png", "a loopback address (this computer)"],
    // Private and shared networks.
    ["https://10.1.2.3/x.png", "a private network address"],
    ["https://172.16.0.1/x.png", "a private network address"],
    ["https://172.31.255.255/x.png", "a private network address"],
    ["https://192.168.1.1/x.png", "a private network address"],
    ["https://3232235777/x.png", "a private network address"],
    ["https://[::ffff:192.168.1.1]/x.png", "a private network address"],
    ["https://100.64.0.1/x.png", "a private network address (shared address space)"],
    ["https://[fd00::1]/x.png", "a unique local address (a private network)"],
    ["https://[fc12:3456::1]/x.png", "a unique local address (a private network)"],
    ["https://[fec0::1]/x.png", "a site-local address (a private network)"],
    // Link-local, where cloud metadata services answer.
    ["https://169.254.169.254/latest/meta-data/", "a link-local address (the local network, or a cloud metadata service)"],
    ["https://[::ffff:169.254.169.254]/", "a link-local address (the local network, or a cloud metadata service)"],
    ["https://[fe80::1]/x.png", "a link-local address (the local network)"],
    // Unspecified, multicast, reserved.
    ["https://0.0.0.0/x.png", "an unspecified address"],
    ["https://0/x.png", "an unspecified address"],
    ["https://[::]/x.png", "an unspecified address"],
    ["https://224.0.0.1/x.png", "a multicast address"],
    ["https://[ff02::1]/x.png", "a multicast address"],
    ["https://255.255.255.255/x.png", "a reserved address"],
    // Names of this computer and the local network.
    ["https://localhost/x.png", "this computer (localhost)"],
    ["https://LOCALHOST./x.png", "this computer (localhost)"],
    ["https://app.localhost/x.png", "this computer (localhost)"],
    ["https://printer.local/x.png", "a name of the local network"],
    ["https://metadata.google.internal/x", "a name of the local network"],
    ["https://router.home.arpa/x.png", "a name of the local network"],
    ["https://router/x.png", "a name without a domain, which only the local network knows"],
  ])("refuses %s: %s", (src, what) => {
    expect(reason(src)).toBe(`the address is ${what}`);
  });

  it.each([
    ["https://example.org/c.png", "https://example.org/c.png"],
    ["https://8.8.8.8/x.png", "https://8.8.8.8/x.png"],
    ["https://172.32.0.1/x.png", "https://172.32.0.1/x.png"],
    ["https://[2606:4700::1111]/x.png", "https://[2606:4700::1111]/x.png"],
    ["https://[::ffff:8.8.8.8]/x.png", "https://[::ffff:808:808]/x.png"],
    ["https://bücher.example/ä.png", "https://xn--bcher-kva.example/%C3%A4.png"],
    ["https://example.org/a\u200Bb.png", "https://example.org/a%E2%80%8Bb.png"],
    ["https://images.example:8443/x.png", "https://images.example:8443/x.png"],
  ])("allows %s, as %s", (src, href) => {
    expect(imageAddress(src, page)).toEqual({ ok: true, href });
  });

  it("judges against the page the view is in", () => {
    expect(imageAddress(`${location.origin}/files/x.png`).ok).toBe(false);
  });
});
