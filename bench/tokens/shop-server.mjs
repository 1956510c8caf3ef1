// An MCP server over the shop's data (shop-data.mjs) for the token benchmark: 16 tools a real
// order database would offer (customers, products, orders, shipments, returns, reviews), whose
// results are whole records of realistic size, paged at most 100 at a time. Stdio transport.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { shopData } from './shop-data.mjs';

const shop = shopData();
const server = new McpServer({ name: 'shop', version: '1.0.0' });
const json = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const notFound = (what, id) => ({
  content: [{ type: 'text', text: `${what} ${id} not found` }],
  isError: true,
});
const page = {
  limit: z.number().int().min(1).max(100).optional(),
  offset: z.number().int().min(0).optional(),
};
function paged(items, { limit = 50, offset = 0 }) {
  const slice = items.slice(offset, offset + limit);
  return {
    total: items.length,
    offset,
    items: slice,
    next_offset: offset + slice.length < items.length ? offset + slice.length : null,
  };
}
const byId = (list) => new Map(list.map((x) => [x.id, x]));
const products = byId(shop.products);
const customers = byId(shop.customers);
const orders = byId(shop.orders);
const shipments = byId(shop.shipments);

const tool = (name, description, inputSchema, handler) =>
  server.registerTool(name, { description, inputSchema }, handler);

tool(
  'list_categories',
  'List the product categories with how many products each has.',
  {},
  async () =>
    json(
      shop.categories.map((c) => ({
        category: c,
        products: shop.products.filter((p) => p.category === c).length,
      })),
    ),
);
tool(
  'list_products',
  'List products, optionally in one category. Paged: limit (max 100) and offset.',
  { category: z.string().optional(), ...page },
  async ({ category, ...p }) =>
    json(
      paged(
        shop.products.filter((x) => !category || x.category === category),
        p,
      ),
    ),
);
tool('get_product', 'Get one product by id.', { product_id: z.string() }, async ({ product_id }) =>
  products.has(product_id) ? json(products.get(product_id)) : notFound('product', product_id),
);
tool(
  'get_inventory',
  'Stock level, warehouse and reorder point of one product.',
  { product_id: z.string() },
  async ({ product_id }) => {
    const p = products.get(product_id);
    return p
      ? json({
          product_id,
          stock: p.stock,
          warehouse: p.warehouse,
          reorder_point: 10,
          low: p.stock < 10,
        })
      : notFound('product', product_id);
  },
);
tool(
  'search_customers',
  'Find customers whose name or email contains the query (case-insensitive).',
  { query: z.string() },
  async ({ query }) => {
    const q = query.toLowerCase();
    return json(
      shop.customers.filter((c) => c.name.toLowerCase().includes(q) || c.email.includes(q)),
    );
  },
);
tool(
  'list_customers',
  'List customers, optionally by country code (DE, FR, PT, SE, US) and segment (consumer, business). Paged.',
  { country: z.string().optional(), segment: z.string().optional(), ...page },
  async ({ country, segment, ...p }) =>
    json(
      paged(
        shop.customers.filter(
          (c) => (!country || c.country === country) && (!segment || c.segment === segment),
        ),
        p,
      ),
    ),
);
tool(
  'get_customer',
  'Get one customer by id.',
  { customer_id: z.string() },
  async ({ customer_id }) =>
    customers.has(customer_id)
      ? json(customers.get(customer_id))
      : notFound('customer', customer_id),
);
tool(
  'list_orders',
  'List orders with their items, optionally by customer, status (processing, shipped, delivered, cancelled) and a placed_at date range (YYYY-MM-DD, inclusive). Paged, oldest first.',
  {
    customer_id: z.string().optional(),
    status: z.string().optional(),
    placed_after: z.string().optional(),
    placed_before: z.string().optional(),
    ...page,
  },
  async ({ customer_id, status, placed_after, placed_before, ...p }) =>
    json(
      paged(
        shop.orders.filter(
          (o) =>
            (!customer_id || o.customer_id === customer_id) &&
            (!status || o.status === status) &&
            (!placed_after || o.placed_at >= placed_after) &&
            (!placed_before || o.placed_at <= placed_before),
        ),
        p,
      ),
    ),
);
tool(
  'get_order',
  'Get one order by id, with its items, totals, payment and shipping address.',
  { order_id: z.string() },
  async ({ order_id }) =>
    orders.has(order_id) ? json(orders.get(order_id)) : notFound('order', order_id),
);
tool(
  'get_order_items',
  'The line items of one order.',
  { order_id: z.string() },
  async ({ order_id }) =>
    orders.has(order_id) ? json(orders.get(order_id).items) : notFound('order', order_id),
);
tool(
  'list_shipments',
  'List shipments, optionally by order, carrier id and status (in_transit, delivered). Paged.',
  {
    order_id: z.string().optional(),
    carrier_id: z.string().optional(),
    status: z.string().optional(),
    ...page,
  },
  async ({ order_id, carrier_id, status, ...p }) =>
    json(
      paged(
        shop.shipments.filter(
          (s) =>
            (!order_id || s.order_id === order_id) &&
            (!carrier_id || s.carrier_id === carrier_id) &&
            (!status || s.status === status),
        ),
        p,
      ),
    ),
);
tool(
  'get_shipment',
  'Get one shipment by id, with its tracking events.',
  { shipment_id: z.string() },
  async ({ shipment_id }) =>
    shipments.has(shipment_id)
      ? json(shipments.get(shipment_id))
      : notFound('shipment', shipment_id),
);
tool(
  'track_shipment',
  'Find a shipment by its carrier tracking code.',
  { tracking_code: z.string() },
  async ({ tracking_code }) => {
    const s = shop.shipments.find((x) => x.tracking_code === tracking_code);
    return s ? json(s) : notFound('tracking code', tracking_code);
  },
);
tool(
  'list_carriers',
  'List the carriers with their promised delivery times (sla_days).',
  {},
  async () => json(shop.carriers),
);
tool(
  'list_returns',
  'List returns, optionally by order or product. Paged.',
  { order_id: z.string().optional(), product_id: z.string().optional(), ...page },
  async ({ order_id, product_id, ...p }) =>
    json(
      paged(
        shop.returns.filter(
          (r) =>
            (!order_id || r.order_id === order_id) && (!product_id || r.product_id === product_id),
        ),
        p,
      ),
    ),
);
tool(
  'list_reviews',
  'The reviews of one product.',
  { product_id: z.string() },
  async ({ product_id }) => json(shop.reviews.filter((r) => r.product_id === product_id)),
);

await server.connect(new StdioServerTransport());
