/**
 * A product link and one HTML ad job for it, with `styles` as the YAML of its `style_ids`
 * (a flow list of ids, or `all`). The link is free and always made; the ad job is what tests of
 * styles, items and refunds look at.
 */
export const adsManifest = (styles: string) => `
version: 1
name: ads
outputs: out
steps:
  - id: product
    kind: link_with_params
    estimate_credits: { low: 0, expected: 0, high: 1 }
    with: { title: "Trail shoe", image_urls: ["https://example.com/shoe.png"] }
  - id: ads
    kind: html_ads
    with: { link: "{{ steps.product.id }}", style_ids: ${styles} }
`;
