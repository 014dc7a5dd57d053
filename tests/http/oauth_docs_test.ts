import assert from "node:assert/strict";

Deno.test("OAuth docs: every ```json block in clients, authentication and security is valid JSON", async () => {
  for (const slug of ["clients", "authentication", "security"]) {
    const text = await Deno.readTextFile(new URL(`../../content/docs/${slug}.md`, import.meta.url));
    assert.match(
      text,
      /^---\ntitle: .+\ndescription: .+\norder: \d+\n---\n/,
      `${slug}: front matter`,
    );
    for (const [, block] of text.matchAll(/```json\n([\s\S]*?)```/g)) {
      assert.doesNotThrow(() => JSON.parse(block), `${slug}: ${block.slice(0, 60)}`);
    }
  }
});
