import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

export interface TestTls {
  /** The CA certificate file: NODE_EXTRA_CA_CERTS for the processes that must trust it. */
  readonly caFile: string;
  /** PEM key and certificate of a server at 127.0.0.1 / localhost, signed by that CA. */
  readonly key: string;
  readonly cert: string;
}

/**
 * A certificate authority made at run time (nothing committed, nothing from the
 * internet) and one server certificate for 127.0.0.1 and localhost, with openssl.
 * The global setup makes them before the test processes start and points
 * NODE_EXTRA_CA_CERTS at the CA, so the service verifies TLS with Node's trust
 * store exactly as in production.
 */
export async function makeTestTls(): Promise<TestTls> {
  const dir = await mkdtemp(path.join(tmpdir(), "pms-tls-"));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=pms test CA",
  );
  openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
    "-subj",
    "/CN=localhost",
  );
  await writeFile(
    file("san.ext"),
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
  );
  openssl(
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("server.pem"),
    "-days",
    "2",
    "-extfile",
    file("san.ext"),
  );
  return {
    caFile: file("ca.pem"),
    key: await readFile(file("server.key"), "utf8"),
    cert: await readFile(file("server.pem"), "utf8"),
  };
}
