import { Field, ObjectType } from "type-graphql";

@ObjectType("Badge", {
  description:
    'A shields-style SVG badge of a score ("maturity | 72 · Scaling") and the snippets that embed it. REST: GET /r/{id}/badge.svg (a result), GET /api/products/{id}/badge.svg (a product\'s latest result).',
})
export class BadgeType {
  @Field(() => String, {
    description: "The SVG document (image/svg+xml): self-contained, the same bytes for the same score and stage.",
  })
  svg: string;

  @Field(() => String, { description: "The absolute address of the image, on the service's public base URL." })
  url: string;

  @Field(() => String, {
    description: "Markdown that embeds the image (a result's links to its share page), for a README.",
  })
  markdown: string;

  @Field(() => String, { description: "HTML that embeds the image (a result's links to its share page)." })
  html: string;
}
