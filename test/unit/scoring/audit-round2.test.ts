import { describe, expect, it } from "vitest";
import {
  deliveryVelocity,
  documentationQuality,
  reliabilityOperations,
} from "../../../src/modules/scoring/rules/engineering-delivery.js";
import { companyMomentum } from "../../../src/modules/scoring/rules/growth-organization.js";
import { integrationEcosystem } from "../../../src/modules/scoring/rules/product-experience.js";
import { enterpriseReadiness } from "../../../src/modules/scoring/rules/trust-enterprise.js";
import type { DimensionId } from "../../../src/modules/scoring/scoring.types.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * A second audit of the calibration corpus (framework 2.6.0): each case is the general shape of what a real
 * site showed, and its counterpart the reading that must still hold.
 */
const facts = (pages: readonly PageSpec[], dimension: DimensionId) =>
  syntheticFacts([...BARE_SITE, ...pages]).about(dimension);
const home = (text: string, namedLinks: PageSpec["namedLinks"] = []): PageSpec[] => [
  { ...BARE_SITE[0]!, text: `${BARE_SITE[0]!.text}\n${text}`, namedLinks },
];
const all = (assessment: { raised: readonly string[]; lowered: readonly string[] }) =>
  [...assessment.raised, ...assessment.lowered].join(" | ");

describe("second audit (framework 2.6.0)", () => {
  it("reads 'enterprise plans' in the plural as an enterprise plan", () => {
    const text = "Yes, for larger teams and organizations we offer customized enterprise plans.";
    expect(enterpriseReadiness(syntheticFacts(home(text)).about("enterprise_readiness")).raised).toContain(
      "an enterprise plan",
    );
  });

  it("does not take the providers' uptime for the product's", () => {
    const providers = reliabilityOperations(
      syntheticFacts(home("On average, our providers average 99.98% uptime, so the service should be there.")).about(
        "reliability_operations",
      ),
    );
    expect(all(providers)).not.toMatch(/uptime stated/);
    const own = reliabilityOperations(
      syntheticFacts(home("Acme kept 99.98% uptime over the last twelve months.")).about("reliability_operations"),
    );
    expect(all(own)).toMatch(/uptime stated: 99.98%/);
  });

  it("counts a guide linked on the site's domain or in its own code-host organisation, not another vendor's", () => {
    const docs = (href: string) =>
      documentationQuality(
        facts(
          [{ path: "/docs", title: "Docs", text: "Documentation home", namedLinks: [{ href, text: "A guide" }] }],
          "documentation_quality",
        ),
      );
    expect(all(docs("https://developer.okta.com/docs/guides/add-an-external-idp/"))).toMatch(
      /no guides, tutorials or quickstart/,
    );
    expect(all(docs("https://acme.example/guides/first-steps"))).toMatch(/guides and tutorials \(1 page or link\)/);
  });

  it("reads '/integrations/<name>' as one integration's page, not the directory", () => {
    const linked = (href: string) =>
      integrationEcosystem(
        syntheticFacts(home("Works with your stack.", [{ href, text: "Integrations" }])).about("integration_ecosystem"),
      );
    expect(all(linked("https://acme.example/integrations/upstash-redis"))).not.toMatch(/integrations page linked/);
    expect(all(linked("https://acme.example/integrations/"))).toMatch(/integrations page linked/);
  });

  it("dates the company from 'founded in June 1999', but not from a partner's 'Launched in 2011'", () => {
    const founded = companyMomentum(
      facts(
        [{ path: "/about", title: "About", text: "Acme was founded in June 1999 by two engineers." }],
        "company_momentum",
      ),
    );
    expect(all(founded)).toMatch(/founded or active since 1999/);
    const partner = companyMomentum(
      facts(
        [
          {
            path: "/blog/welcoming-globex",
            title: "Welcoming Globex",
            text: "Launched in 2011, Globex offers unlimited storage.",
          },
        ],
        "company_momentum",
      ),
    );
    expect(all(partner)).not.toMatch(/since 2011/);
  });

  it("still reads delivery as before on a site with no changelog", () => {
    expect(all(deliveryVelocity(syntheticFacts(BARE_SITE).about("delivery_velocity")))).toMatch(/no changelog/);
  });
});
