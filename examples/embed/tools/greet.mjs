// DESCRIPTION "Greets someone by name."
// PARAM name AS string LIKE "Ada" DESCRIPTION "Who to greet."
// PARAM excited AS boolean OPTIONAL DESCRIPTION "End with an exclamation mark."
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { name, excited = false } = JSON.parse(input);
console.log(JSON.stringify({ greeting: `Hello, ${name}${excited ? '!' : '.'}` }));
