// The shop's data for the token benchmark: customers, products, orders, shipments, returns and
// reviews, made from a fixed seed, so every run (and both trajectories) sees the same records.

/** A small seeded PRNG (mulberry32): the same seed, the same sequence, on every machine. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Ada',
  'Ben',
  'Chloe',
  'Dario',
  'Elif',
  'Farid',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Keiko',
  'Liam',
  'Mara',
  'Nils',
  'Olga',
  'Paulo',
  'Quinn',
  'Rosa',
  'Sven',
  'Tara',
];
const LAST = [
  'Almeida',
  'Becker',
  'Costa',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Hansen',
  'Ito',
  'Jansen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Novak',
  'Okafor',
  'Petrov',
  'Rossi',
  'Schmidt',
  'Tanaka',
  'Weber',
];
const COUNTRIES = [
  ['DE', 'Berlin', 'Hamburg', 'Munich'],
  ['FR', 'Paris', 'Lyon', 'Nantes'],
  ['PT', 'Lisbon', 'Porto', 'Braga'],
  ['SE', 'Stockholm', 'Malmo', 'Uppsala'],
  ['US', 'Boston', 'Denver', 'Austin'],
];
const CATEGORIES = ['Kitchen', 'Garden', 'Office', 'Outdoor', 'Lighting', 'Bath'];
const NOUNS = [
  'Kettle',
  'Planter',
  'Desk Lamp',
  'Tent',
  'Pendant',
  'Towel Set',
  'Mug',
  'Hose',
  'Notebook',
  'Lantern',
  'Chair',
  'Shelf',
];
const ADJ = [
  'Classic',
  'Compact',
  'Deluxe',
  'Eco',
  'Nordic',
  'Pro',
  'Rustic',
  'Studio',
  'Urban',
  'Vintage',
];
const CARRIERS = [
  {
    id: 'car_dhl',
    name: 'DHL Express',
    tracking_url: 'https://track.example/dhl/{code}',
    sla_days: 2,
  },
  {
    id: 'car_ups',
    name: 'UPS Standard',
    tracking_url: 'https://track.example/ups/{code}',
    sla_days: 4,
  },
  {
    id: 'car_pst',
    name: 'PostNord',
    tracking_url: 'https://track.example/postnord/{code}',
    sla_days: 5,
  },
  {
    id: 'car_ctt',
    name: 'CTT Expresso',
    tracking_url: 'https://track.example/ctt/{code}',
    sla_days: 3,
  },
];
const ORDER_STATUSES = [
  'delivered',
  'delivered',
  'delivered',
  'shipped',
  'processing',
  'cancelled',
];
const REVIEW_TEXT = [
  'Works as described, sturdy and well packed.',
  'Arrived quickly; the finish is nicer than in the photos.',
  'Decent value for the price, though the manual is thin.',
  'Stopped working after a few weeks, support replaced it.',
  'Exactly what we needed for the new flat.',
];

const day = (d) => new Date(Date.UTC(2026, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);

/** The whole shop, built once per process. */
export function shopData(seed = 20261204) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

  const products = [];
  for (let i = 1; i <= 60; i++) {
    const category = CATEGORIES[i % CATEGORIES.length];
    products.push({
      id: `prd_${String(i).padStart(3, '0')}`,
      sku: `SKU-${1000 + i * 7}`,
      name: `${pick(ADJ)} ${pick(NOUNS)} ${i}`,
      category,
      price: Math.round((8 + rand() * 240) * 100) / 100,
      currency: 'EUR',
      weight_kg: Math.round((0.2 + rand() * 12) * 10) / 10,
      description: `A ${category.toLowerCase()} item from the ${pick(ADJ).toLowerCase()} line, made to last and easy to care for.`,
      stock: int(0, 120),
      warehouse: pick(['LIS-1', 'HAM-2', 'LYO-1']),
      created_at: day(-int(30, 700)),
    });
  }

  const customers = [];
  for (let i = 1; i <= 200; i++) {
    const [country, ...cities] = pick(COUNTRIES);
    const first = pick(FIRST);
    const last = pick(LAST);
    customers.push({
      id: `cus_${String(i).padStart(4, '0')}`,
      name: `${first} ${last}`,
      email: `${first}.${last}${i}@mail.example`.toLowerCase(),
      phone: `+${int(30, 49)} ${int(100, 999)} ${int(100000, 999999)}`,
      country,
      city: pick(cities),
      address: `${int(1, 240)} ${pick(['Harbour', 'Mill', 'Station', 'Garden', 'Church'])} Street`,
      postal_code: String(int(10000, 99999)),
      segment: pick(['consumer', 'consumer', 'business']),
      marketing_opt_in: rand() < 0.4,
      created_at: day(-int(10, 900)),
      notes: rand() < 0.3 ? 'Prefers delivery after 17:00; call before arrival.' : '',
    });
  }

  const orders = [];
  const shipments = [];
  const returns = [];
  for (let i = 1; i <= 1500; i++) {
    const customer = pick(customers);
    const placed = int(0, 330);
    const status = pick(ORDER_STATUSES);
    const items = [];
    for (let n = int(1, 4); n > 0; n--) {
      const product = pick(products);
      const quantity = int(1, 3);
      items.push({
        product_id: product.id,
        sku: product.sku,
        name: product.name,
        quantity,
        unit_price: product.price,
        line_total: Math.round(product.price * quantity * 100) / 100,
      });
    }
    const subtotal = Math.round(items.reduce((s, it) => s + it.line_total, 0) * 100) / 100;
    const shipping = subtotal > 150 ? 0 : 6.9;
    const order = {
      id: `ord_${String(i).padStart(5, '0')}`,
      customer_id: customer.id,
      status,
      placed_at: day(placed),
      currency: 'EUR',
      items,
      subtotal,
      shipping,
      total: Math.round((subtotal + shipping) * 100) / 100,
      payment: {
        method: pick(['card', 'card', 'paypal', 'invoice']),
        captured: status !== 'cancelled',
      },
      shipping_address: {
        name: customer.name,
        street: customer.address,
        city: customer.city,
        postal_code: customer.postal_code,
        country: customer.country,
      },
    };
    orders.push(order);
    if (status === 'delivered' || status === 'shipped') {
      const carrier = pick(CARRIERS);
      const shippedDay = placed + int(0, 3);
      const delay = rand() < 0.22 ? int(1, 6) : 0;
      const promised = shippedDay + carrier.sla_days;
      shipments.push({
        id: `shp_${String(shipments.length + 1).padStart(5, '0')}`,
        order_id: order.id,
        carrier_id: carrier.id,
        tracking_code: `TRK${int(100000000, 999999999)}`,
        status: status === 'delivered' ? 'delivered' : 'in_transit',
        shipped_at: day(shippedDay),
        promised_at: day(promised),
        delivered_at: status === 'delivered' ? day(promised + delay - int(0, 1)) : null,
        events: [
          { at: day(shippedDay), what: 'picked up' },
          { at: day(shippedDay + 1), what: 'at sorting center' },
          ...(status === 'delivered' ? [{ at: day(promised + delay), what: 'delivered' }] : []),
        ],
      });
      if (status === 'delivered' && rand() < 0.08) {
        const item = pick(items);
        returns.push({
          id: `ret_${String(returns.length + 1).padStart(4, '0')}`,
          order_id: order.id,
          product_id: item.product_id,
          quantity: 1,
          reason: pick(['damaged', 'wrong size', 'not as described', 'changed mind']),
          refund: item.unit_price,
          created_at: day(promised + delay + int(1, 14)),
        });
      }
    }
  }

  const reviews = [];
  for (const product of products) {
    for (let n = int(0, 6); n > 0; n--) {
      reviews.push({
        id: `rev_${String(reviews.length + 1).padStart(4, '0')}`,
        product_id: product.id,
        customer_id: pick(customers).id,
        rating: int(1, 5),
        title: pick(['Great', 'Fine', 'Okay', 'Disappointing', 'Love it']),
        text: pick(REVIEW_TEXT),
        created_at: day(int(0, 330)),
      });
    }
  }

  return {
    products,
    customers,
    orders,
    shipments,
    returns,
    reviews,
    carriers: CARRIERS,
    categories: CATEGORIES,
  };
}
