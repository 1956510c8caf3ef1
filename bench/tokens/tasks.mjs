// The token benchmark's tasks: each has a prompt, a direct trajectory (the tool calls a model
// calling tools one turn at a time would make, scripted) and a code mode program (what a model
// would send to code_execution). Both run for real; both must reach the same answer.
import { shopData } from './shop-data.mjs';

const shop = shopData();
const round2 = (n) => Math.round(n * 100) / 100;
/** The customer with the most orders: a name the user would know. */
const regular = (() => {
  const counts = new Map();
  for (const o of shop.orders) counts.set(o.customer_id, (counts.get(o.customer_id) ?? 0) + 1);
  const [id] = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return shop.customers.find((c) => c.id === id);
})();
const someOrder = shop.orders.find((o) => o.status === 'shipped').id;
const someTracking = shop.shipments.filter((s) => s.status === 'delivered')[17].tracking_code;

/** Reads every page of a paged shop tool in one turn each, as a model would. */
async function allPages(t, tool, args) {
  const items = [];
  let offset = 0;
  for (;;) {
    const [page] = await t.turn([['shop', tool, { ...args, limit: 100, offset }]]);
    items.push(...page.items);
    if (page.next_offset === null) return items;
    offset = page.next_offset;
  }
}

// A program's helpers, as a model writes them at the top of its program.
const GET =
  'const get = async (tool, args = {}) => JSON.parse((await tools.shop[tool](args)).data);';
const ALL = `${GET}
const all = async (tool, args = {}) => { const items = []; let offset = 0;
  for (;;) { const p = await get(tool, { ...args, limit: 100, offset }); items.push(...p.items);
    if (p.next_offset === null) return items; offset = p.next_offset; } };`;

export const TASKS = [
  {
    name: 'customer spend, H1',
    prompt: `How much did ${regular.name} spend on delivered orders placed in the first half of 2026 (EUR, with shipping)?`,
    async direct(t) {
      const [found] = await t.turn([['shop', 'search_customers', { query: regular.name }]]);
      const orders = await allPages(t, 'list_orders', {
        customer_id: found[0].id,
        status: 'delivered',
        placed_after: '2026-01-01',
        placed_before: '2026-06-30',
      });
      return round2(orders.reduce((s, o) => s + o.total, 0));
    },
    code: `${ALL}
const [c] = await get('search_customers', { query: ${JSON.stringify(regular.name)} });
const orders = await all('list_orders', { customer_id: c.id, status: 'delivered', placed_after: '2026-01-01', placed_before: '2026-06-30' });
return Math.round(orders.reduce((s, o) => s + o.total, 0) * 100) / 100;`,
  },
  {
    name: 'top Kitchen products, March',
    prompt:
      'Which 3 Kitchen products sold the most units on delivered orders placed in March 2026? Give their ids.',
    async direct(t) {
      const [kitchen] = await t.turn([
        ['shop', 'list_products', { category: 'Kitchen', limit: 100 }],
      ]);
      const ids = new Set(kitchen.items.map((p) => p.id));
      const orders = await allPages(t, 'list_orders', {
        status: 'delivered',
        placed_after: '2026-03-01',
        placed_before: '2026-03-31',
      });
      return topUnits(orders, ids);
    },
    code: `${ALL}
const kitchen = new Set((await get('list_products', { category: 'Kitchen', limit: 100 })).items.map((p) => p.id));
const orders = await all('list_orders', { status: 'delivered', placed_after: '2026-03-01', placed_before: '2026-03-31' });
const units = new Map();
for (const o of orders) for (const it of o.items) if (kitchen.has(it.product_id)) units.set(it.product_id, (units.get(it.product_id) ?? 0) + it.quantity);
return [...units].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3).map(([id]) => id);`,
  },
  {
    name: 'carrier with most late deliveries',
    prompt:
      'Which carrier delivered the most shipments late (delivered after the promised date)? Name it and the count.',
    async direct(t) {
      const [carriers] = await t.turn([['shop', 'list_carriers', {}]]);
      const delivered = await allPages(t, 'list_shipments', { status: 'delivered' });
      return mostLate(delivered, carriers);
    },
    code: `${ALL}
const carriers = await get('list_carriers');
const late = new Map();
for (const s of await all('list_shipments', { status: 'delivered' })) if (s.delivered_at > s.promised_at) late.set(s.carrier_id, (late.get(s.carrier_id) ?? 0) + 1);
const [id, count] = [...late].sort((a, b) => b[1] - a[1])[0];
return { carrier: carriers.find((c) => c.id === id).name, late: count };`,
  },
  {
    name: 'ratings of low-stock Garden products',
    prompt:
      'What is the average review rating of the Garden products that are low in stock? Round to two decimals.',
    async direct(t) {
      const [garden] = await t.turn([
        ['shop', 'list_products', { category: 'Garden', limit: 100 }],
      ]);
      const stock = await t.turn(
        garden.items.map((p) => ['shop', 'get_inventory', { product_id: p.id }]),
      );
      const low = stock.filter((s) => s.low).map((s) => s.product_id);
      const reviews = await t.turn(low.map((id) => ['shop', 'list_reviews', { product_id: id }]));
      return averageRating(reviews.flat());
    },
    code: `${GET}
const garden = (await get('list_products', { category: 'Garden', limit: 100 })).items;
const stock = await Promise.all(garden.map((p) => get('get_inventory', { product_id: p.id })));
const low = stock.filter((s) => s.low).map((s) => s.product_id);
const reviews = (await Promise.all(low.map((id) => get('list_reviews', { product_id: id })))).flat();
return reviews.length ? Math.round((reviews.reduce((s, r) => s + r.rating, 0) / reviews.length) * 100) / 100 : null;`,
  },
  {
    name: 'where is an order',
    prompt: `Where is order ${someOrder}: its status, the carrier's name and the tracking code?`,
    async direct(t) {
      const [[order, shipments, carriers]] = [
        await t.turn([
          ['shop', 'get_order', { order_id: someOrder }],
          ['shop', 'list_shipments', { order_id: someOrder }],
          ['shop', 'list_carriers', {}],
        ]),
      ];
      const s = shipments.items[0];
      return {
        status: order.status,
        carrier: carriers.find((c) => c.id === s.carrier_id).name,
        tracking: s.tracking_code,
      };
    },
    code: `${GET}
const [order, shipments, carriers] = await Promise.all([get('get_order', { order_id: ${JSON.stringify(someOrder)} }), get('list_shipments', { order_id: ${JSON.stringify(someOrder)} }), get('list_carriers')]);
const s = shipments.items[0];
return { status: order.status, carrier: carriers.find((c) => c.id === s.carrier_id).name, tracking: s.tracking_code };`,
  },
  {
    name: 'returns by reason',
    prompt: 'How many returns are there for each reason?',
    async direct(t) {
      return countBy(await allPages(t, 'list_returns', {}), 'reason');
    },
    code: `${ALL}
const counts = {};
for (const r of await all('list_returns')) counts[r.reason] = (counts[r.reason] ?? 0) + 1;
return Object.fromEntries(Object.entries(counts).sort());`,
  },
  {
    name: 'recent German business customers',
    prompt: 'How many business customers in Germany placed an order after 2026-10-28?',
    async direct(t) {
      const customers = await allPages(t, 'list_customers', { country: 'DE', segment: 'business' });
      const orders = await allPages(t, 'list_orders', { placed_after: '2026-10-29' });
      const ids = new Set(customers.map((c) => c.id));
      return new Set(orders.filter((o) => ids.has(o.customer_id)).map((o) => o.customer_id)).size;
    },
    code: `${ALL}
const ids = new Set((await all('list_customers', { country: 'DE', segment: 'business' })).map((c) => c.id));
const orders = await all('list_orders', { placed_after: '2026-10-29' });
return new Set(orders.filter((o) => ids.has(o.customer_id)).map((o) => o.customer_id)).size;`,
  },
  {
    name: 'largest October order',
    prompt:
      "Which was the largest order placed in October 2026? Its id, total, the customer's name and its shipment status.",
    async direct(t) {
      const orders = await allPages(t, 'list_orders', {
        placed_after: '2026-10-01',
        placed_before: '2026-10-31',
      });
      const top = orders.reduce((a, b) => (b.total > a.total ? b : a));
      const [customer, shipments] = await t.turn([
        ['shop', 'get_customer', { customer_id: top.customer_id }],
        ['shop', 'list_shipments', { order_id: top.id }],
      ]);
      return {
        id: top.id,
        total: top.total,
        customer: customer.name,
        shipment: shipments.items[0]?.status ?? 'none',
      };
    },
    code: `${ALL}
const orders = await all('list_orders', { placed_after: '2026-10-01', placed_before: '2026-10-31' });
const top = orders.reduce((a, b) => (b.total > a.total ? b : a));
const [customer, shipments] = await Promise.all([get('get_customer', { customer_id: top.customer_id }), get('list_shipments', { order_id: top.id })]);
return { id: top.id, total: top.total, customer: customer.name, shipment: shipments.items[0]?.status ?? 'none' };`,
  },
  {
    name: 'track a parcel',
    prompt: `Tracking code ${someTracking}: when was it delivered, and was that later than promised?`,
    async direct(t) {
      const [s] = await t.turn([['shop', 'track_shipment', { tracking_code: someTracking }]]);
      return { delivered_at: s.delivered_at, late: s.delivered_at > s.promised_at };
    },
    code: `${GET}
const s = await get('track_shipment', { tracking_code: ${JSON.stringify(someTracking)} });
return { delivered_at: s.delivered_at, late: s.delivered_at > s.promised_at };`,
  },
  {
    name: 'revenue by category, Q1',
    prompt:
      'What was the revenue (sum of line totals) of delivered orders placed in Q1 2026, per product category?',
    async direct(t) {
      const [products] = await t.turn([['shop', 'list_products', { limit: 100 }]]);
      const orders = await allPages(t, 'list_orders', {
        status: 'delivered',
        placed_after: '2026-01-01',
        placed_before: '2026-03-31',
      });
      return revenueByCategory(orders, products.items);
    },
    code: `${ALL}
const category = new Map((await get('list_products', { limit: 100 })).items.map((p) => [p.id, p.category]));
const revenue = {};
for (const o of await all('list_orders', { status: 'delivered', placed_after: '2026-01-01', placed_before: '2026-03-31' }))
  for (const it of o.items) { const c = category.get(it.product_id); revenue[c] = (revenue[c] ?? 0) + it.line_total; }
return Object.fromEntries(Object.entries(revenue).sort().map(([c, v]) => [c, Math.round(v * 100) / 100]));`,
  },
  {
    name: 'lines in the notes (filesystem)',
    prompt: 'How many lines do the Markdown files in the notes folder have, in total?',
    async direct(t, env) {
      const [listing] = await t.turn(
        [['filesystem', 'list_directory', { path: env.notes }]],
        'text',
      );
      const files = listing
        .split('\n')
        .filter((l) => l.startsWith('[FILE]') && l.endsWith('.md'))
        .map((l) => `${env.notes}/${l.slice(7)}`);
      const texts = await t.turn(
        files.map((p) => ['filesystem', 'read_text_file', { path: p }]),
        'text',
      );
      return texts.reduce((n, text) => n + text.split('\n').length, 0);
    },
    // server-filesystem answers with structuredContent {content}: tools.* returns it as data.
    code: (
      env,
    ) => `const listing = (await tools.filesystem.list_directory({ path: ${JSON.stringify(env.notes)} })).data.content;
const files = listing.split('\\n').filter((l) => l.startsWith('[FILE]') && l.endsWith('.md')).map((l) => ${JSON.stringify(env.notes)} + '/' + l.slice(7));
const texts = await Promise.all(files.map(async (p) => (await tools.filesystem.read_text_file({ path: p })).data.content));
return texts.reduce((n, text) => n + text.split('\\n').length, 0);`,
  },
  {
    name: 'record and query a graph (memory)',
    prompt:
      'Record the three warehouses (LIS-1, HAM-2, LYO-1) as entities with their product counts as observations, then tell me which warehouse holds the most products.',
    async direct(t) {
      const [products] = await t.turn([['shop', 'list_products', { limit: 100 }]]);
      const counts = countBy(products.items, 'warehouse');
      await t.turn(
        [
          [
            'memory',
            'create_entities',
            {
              entities: Object.entries(counts).map(([name, n]) => ({
                name,
                entityType: 'warehouse',
                observations: [`holds ${n} products`],
              })),
            },
          ],
        ],
        'text',
      );
      const [graph] = await t.turn([['memory', 'read_graph', {}]]);
      return mostProducts(graph.entities);
    },
    code: `${GET}
const counts = {};
for (const p of (await get('list_products', { limit: 100 })).items) counts[p.warehouse] = (counts[p.warehouse] ?? 0) + 1;
await tools.memory.create_entities({ entities: Object.entries(counts).map(([name, n]) => ({ name, entityType: 'warehouse', observations: ['holds ' + n + ' products'] })) });
const graph = (await tools.memory.read_graph({})).data;
const held = (e) => Number(/holds (\\d+) products/.exec(e.observations.join(' '))?.[1] ?? 0);
return graph.entities.filter((e) => e.entityType === 'warehouse').sort((a, b) => held(b) - held(a))[0].name;`,
  },
];

function topUnits(orders, ids) {
  const units = new Map();
  for (const o of orders)
    for (const it of o.items)
      if (ids.has(it.product_id))
        units.set(it.product_id, (units.get(it.product_id) ?? 0) + it.quantity);
  return [...units]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 3)
    .map(([id]) => id);
}

function mostLate(shipments, carriers) {
  const late = new Map();
  for (const s of shipments)
    if (s.delivered_at > s.promised_at) late.set(s.carrier_id, (late.get(s.carrier_id) ?? 0) + 1);
  const [id, count] = [...late].sort((a, b) => b[1] - a[1])[0];
  return { carrier: carriers.find((c) => c.id === id).name, late: count };
}

function averageRating(reviews) {
  return reviews.length ? round2(reviews.reduce((s, r) => s + r.rating, 0) / reviews.length) : null;
}

function countBy(items, key) {
  const counts = {};
  for (const x of items) counts[x[key]] = (counts[x[key]] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort());
}

function revenueByCategory(orders, products) {
  const category = new Map(products.map((p) => [p.id, p.category]));
  const revenue = {};
  for (const o of orders)
    for (const it of o.items) {
      const c = category.get(it.product_id);
      revenue[c] = (revenue[c] ?? 0) + it.line_total;
    }
  return Object.fromEntries(
    Object.entries(revenue)
      .sort()
      .map(([c, v]) => [c, round2(v)]),
  );
}

function mostProducts(entities) {
  const held = (e) => Number(/holds (\d+) products/.exec(e.observations.join(' '))?.[1] ?? 0);
  return entities.filter((e) => e.entityType === 'warehouse').sort((a, b) => held(b) - held(a))[0]
    .name;
}
