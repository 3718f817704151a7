const rate = 0.2;
function tax(amount) {
  return amount * rate + 1;
}
module.exports = { tax };
