/**
 * A chain of three steps: a short, two Boreal teasers that need it, and a final short that needs
 * the teasers. The short's POST is always a run's first (everything else waits for it), and an
 * AI Short cannot be searched for: killed after that POST, it is held in doubt with three jobs
 * planned behind it, two directly and one through the teasers.
 */
export const CHAIN_MANIFEST = `
version: 1
name: chain
outputs: out
steps:
  - id: short
    kind: ai_short
    with: { script: "Every trail starts with one step.", style: 3D, aspect_ratio: 9x16 }
  - id: teasers
    kind: boreal
    needs: [short]
    matrix: { seconds: [5, 10] }
    with: { prompt: A shoe in a stream, resolution: 720p, duration: "{{ matrix.seconds }}" }
  - id: final
    kind: ai_short
    needs: [teasers]
    with: { script: "The trail goes on.", style: 3D, aspect_ratio: 9x16 }
`;
