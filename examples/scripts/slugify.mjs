// DESCRIPTION "Turns a title into a URL slug."
// PARAM title AS string LIKE "Hello, World!" DESCRIPTION "The title to turn into a slug."
// PARAM max_length AS integer OPTIONAL LIKE 40 DESCRIPTION "Cut the slug to this many characters."
// HINTS readOnly, idempotent, openWorld: false
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { title, max_length: maxLength = 80 } = JSON.parse(input);
const slug = title
  .normalize('NFKD')
  .replace(/[\u0300-\u036f]/g, '')
  .toLowerCase()
  .replace(/[^a-z0-9]+/g, '-')
  .replace(/^-|-$/g, '')
  .slice(0, maxLength);
console.log(JSON.stringify({ slug }));
