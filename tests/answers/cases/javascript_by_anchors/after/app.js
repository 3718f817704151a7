const rate = 0.2;
function tax(amount) {
  return amount * rate;
}
module.exports = { tax };
